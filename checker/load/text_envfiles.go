package load

import (
	"path"
	"regexp"
	"sort"
	"strings"

	"github.com/kube-proxy-lint/kube-proxy-lint/checker"
	"github.com/kube-proxy-lint/kube-proxy-lint/checker/shell"
)

// Environment files: the sysconfig/default style files that packaged kube-proxy units read
// (/etc/kubernetes/proxy with KUBE_PROXY_ARGS="--proxy-mode=ipvs ...", /etc/default/kube-proxy,
// /etc/sysconfig/kube-proxy, kube-proxy.env). A unit that names one in EnvironmentFile= and
// expands its variables in ExecStart gets the flags with their positions in the environment
// file (text_commands.go). An environment file that no unit in the workspace reads is a
// kube-proxy command line of its own, when its variables set --proxy-mode or --config:
// without them, the unit elsewhere decides the mode.

func init() {
	nameFilters = append(nameFilters, isEnvFileName)
	textClassifiers = append(textClassifiers, isEnvFile)
	instanceFinders = append(instanceFinders, envFileInstances)
}

// envKubeProxyRe finds an assignment that carries kube-proxy flags.
var envKubeProxyRe = regexp.MustCompile(`(?m)^[ \t]*(?:export[ \t]+)?(?:KUBE_PROXY_[A-Z_]*|KUBE_PROXY|PROXY_ARGS|DAEMON_ARGS)=`)

func isEnvFileName(name string) bool {
	n := strings.ToLower(strings.ReplaceAll(name, `\`, "/"))
	base, dir := path.Base(n), path.Base(path.Dir(n))
	switch {
	case base == "proxy" && dir == "kubernetes":
		return true
	case dir == "default" || dir == "sysconfig":
		return strings.Contains(base, "kube-proxy") || strings.Contains(base, "kube_proxy") || strings.Contains(base, "kubeproxy")
	case strings.HasSuffix(base, ".env"):
		return strings.Contains(base, "kube-proxy") || strings.Contains(base, "kube_proxy") || base == "proxy.env"
	}
	return false
}

// isEnvFile: an environment file by name whose variables hold kube-proxy settings.
func isEnvFile(name string, content []byte) bool {
	return isEnvFileName(name) && envKubeProxyRe.Match(content)
}

// envAssignments returns the variables an environment file assigns (NAME=value, optionally
// quoted or exported), the last one winning.
func envAssignments(f *checker.File) map[string]envWord {
	s := f.Memo(envMemoKey{}, func() any {
		return shell.Parse(f.Content, 0, len(f.Content), shell.Options{NoHeredocs: true})
	}).(*shell.Script)
	env := map[string]envWord{}
	for _, c := range s.Commands {
		words := c.Words
		if len(words) > 0 && words[0].Text == "export" {
			words = words[1:]
		}
		for _, w := range words {
			if name, _, ok := strings.Cut(w.Text, "="); ok && shell.IsAssignment(w.Text) {
				env[name] = envWord{w: w, f: f}
			}
		}
	}
	return env
}

type envMemoKey struct{}

// unitEnvFiles returns the variables of the environment files that unit f names in
// EnvironmentFile= lines and that are in the workspace.
func unitEnvFiles(ws *checker.Workspace, f *checker.File) map[string]envWord {
	out := map[string]envWord{}
	for _, ef := range unitEnvFileList(ws, f) {
		for k, v := range envAssignments(ef) {
			out[k] = v
		}
	}
	return out
}

// unitEnvFileList resolves the EnvironmentFile= paths of unit f to workspace files: the file
// whose path ends with the same path, else with the same directory and name
// ("kubernetes/proxy", "default/kube-proxy").
func unitEnvFileList(ws *checker.Workspace, f *checker.File) []*checker.File {
	var out []*checker.File
	for l := 1; l <= f.Lines.Lines(); l++ {
		line := strings.TrimSpace(f.Lines.LineText(l))
		v, ok := strings.CutPrefix(line, "EnvironmentFile=")
		if !ok {
			continue
		}
		p := path.Clean("/" + strings.TrimPrefix(strings.TrimSpace(v), "-"))
		if strings.Contains(p, "%") || strings.Contains(p, "$") {
			continue
		}
		tail := "/" + path.Base(path.Dir(p)) + "/" + path.Base(p)
		var best *checker.File
		for _, c := range ws.Files {
			if c.Format != checker.FormatText || c == f || !isEnvFileName(c.Path) {
				continue
			}
			cp := "/" + c.Path
			switch {
			case strings.HasSuffix(cp, p):
				best = c
			case best == nil && strings.HasSuffix(cp, tail):
				best = c
			}
		}
		if best != nil {
			out = append(out, best)
		}
	}
	return out
}

// envFileInstances turns environment files that no unit reads into kube-proxy command lines.
func envFileInstances(ws *checker.Workspace) []*checker.Instance {
	read := map[*checker.File]bool{}
	for _, f := range ws.Files {
		if f.Format == checker.FormatText && shell.DialectOf(f.Path, f.Content) == shell.DialectUnit {
			for _, ef := range unitEnvFileList(ws, f) {
				read[ef] = true
			}
		}
	}
	var out []*checker.Instance
	var configs *configIndex
	for _, f := range ws.Files {
		if f.Format != checker.FormatText || read[f] || !isEnvFile(f.Path, f.Content) {
			continue
		}
		env := envAssignments(f)
		names := make([]string, 0, len(env))
		for n := range env {
			if envKubeProxyRe.MatchString(n + "=") {
				names = append(names, n)
			}
		}
		sort.Strings(names)
		var flags []checker.Flag
		for _, n := range names {
			fl, _ := textFlags(f, shell.SplitValue(env[n].w), false)
			flags = append(flags, fl...)
		}
		in := &checker.Instance{Kind: checker.InstanceCommand, Source: f, Flags: flags, Label: "kube-proxy flags in environment file " + f.Path}
		if in.Flag("proxy-mode") == nil && in.Flag("config") == nil {
			continue
		}
		w := env[names[0]].w
		in.Program, in.ProgramEnd = f.PositionAt(w.Pos), f.PositionAt(w.Pos+len(names[0]))
		if cf := in.Flag("config"); cf != nil {
			if configs == nil {
				configs = newConfigIndex(ws)
			}
			resolveTextConfig(configs, in, cf)
		}
		out = append(out, in)
	}
	return out
}
