package load

import (
	"bytes"
	"path"
	"regexp"
	"sort"
	"strings"

	"github.com/kube-proxy-lint/kube-proxy-lint/checker"
	"github.com/kube-proxy-lint/kube-proxy-lint/checker/text"
	"github.com/kube-proxy-lint/kube-proxy-lint/checker/text/shell"
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
	textClassifiers = append(textClassifiers, isEnvFile, isEnvShaped)
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

// envAssignLineRe is a line of an environment file: a comment, blank, or NAME=value.
var envAssignLineRe = regexp.MustCompile(`^[ \t]*(?:#.*|(?:export[ \t]+)?[A-Za-z_][A-Za-z0-9_]*=.*)?$`)

// isEnvShaped: a file of any name that only assigns variables, one of which holds kube-proxy
// settings (KUBE_PROXY_ARGS=...). It is read so that a unit's EnvironmentFile= can resolve to
// it by base name (unitEnvFilesByName); on its own it is no kube-proxy (envFileInstances
// keeps to environment files by name).
func isEnvShaped(name string, content []byte) bool {
	if len(content) > 64<<10 || !envKubeProxyRe.Match(content) {
		return false
	}
	for _, l := range bytes.Split(content, []byte("\n")) {
		if !envAssignLineRe.Match(bytes.TrimSuffix(l, []byte("\r"))) {
			return false
		}
	}
	return true
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
	for _, p := range unitEnvPaths(f) {
		if best := envFileByPath(ws, f, p); best != nil {
			out = append(out, best)
		}
	}
	return out
}

// unitEnvPaths returns the cleaned EnvironmentFile= paths of unit f, without those that hold a
// specifier or a variable.
func unitEnvPaths(f *checker.File) []string {
	var out []string
	for l := 1; l <= f.Lines.Lines(); l++ {
		line := strings.TrimSpace(f.Lines.LineText(l))
		v, ok := strings.CutPrefix(line, "EnvironmentFile=")
		if !ok {
			continue
		}
		p := path.Clean("/" + strings.TrimPrefix(strings.TrimSpace(v), "-"))
		if strings.Contains(p, "%") || strings.Contains(p, "$") || text.HasPlaceholder(p) {
			continue
		}
		out = append(out, p)
	}
	return out
}

// envFileByPath returns the environment file at path p of unit f: the file whose path ends
// with p, else with p's directory and name.
func envFileByPath(ws *checker.Workspace, f *checker.File, p string) *checker.File {
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
	return best
}

// unitEnvFilesByName resolves the EnvironmentFile= paths of unit f that no file matches by
// path (envFileByPath) to the only environment file of the same base name in f's cluster
// (ws.SameCluster) that is an environment file (by name, or only assignments with a
// KUBE_PROXY_* one): a /etc/kubernetes/proxy kept in the repository as roles/node/files/proxy.
// It needs the clusters, so it runs after they are inferred (pairEnvFilesByName).
func unitEnvFilesByName(ws *checker.Workspace, f *checker.File) []*checker.File {
	var out []*checker.File
	for _, p := range unitEnvPaths(f) {
		if envFileByPath(ws, f, p) != nil {
			continue
		}
		base := path.Base(p)
		var all, same []*checker.File
		for _, c := range ws.Files {
			if c.Format == checker.FormatText && c != f && shell.StripTemplateExt(path.Base(c.Path)) == base && (isEnvFile(c.Path, c.Content) || isEnvShaped(c.Path, c.Content)) {
				all = append(all, c)
				if ws.SameCluster(f.Path, c.Path) {
					same = append(same, c)
				}
			}
		}
		switch {
		case len(same) == 1:
			out = append(out, same[0])
		case len(same) == 0 && len(all) == 1 && ws.ClusterOf(f.Path) == nil && ws.ClusterOf(all[0].Path) == nil:
			// Neither file is in a cluster (the unit's command line waited for this file, so
			// nothing anchored one): the only file of that name in the workspace is the one.
			out = append(out, all[0])
		}
	}
	return out
}

// pairEnvFilesByName, run once the clusters are known, re-reads the kube-proxy command lines
// of each unit whose EnvironmentFile= resolves by base name (unitEnvFilesByName) with that
// file's variables. An environment file read that way is no kube-proxy of its own any more.
func pairEnvFilesByName(ws *checker.Workspace) {
	var configs *configIndex
	replaced := map[*checker.File][]*checker.Instance{}
	read := map[*checker.File]bool{}
	for _, f := range ws.Files {
		if f.Format != checker.FormatText || shell.DialectOf(f.Path, f.Content) != shell.DialectUnit || !bytes.Contains(f.Content, []byte("EnvironmentFile=")) {
			continue
		}
		byName := unitEnvFilesByName(ws, f)
		if len(byName) == 0 {
			continue
		}
		replaced[f] = commandInstances(ws, f, &configs, byName)
		for _, ef := range byName {
			read[ef] = true
		}
	}
	if len(replaced) == 0 {
		return
	}
	var out []*checker.Instance
	done := map[*checker.File]bool{}
	for _, in := range ws.Instances {
		if in.Kind == checker.InstanceCommand && in.Workload == nil {
			if read[in.Source] {
				continue
			}
			if news, ok := replaced[in.Source]; ok {
				if !done[in.Source] {
					out = append(out, news...)
					done[in.Source] = true
				}
				continue
			}
		}
		out = append(out, in)
	}
	for _, f := range ws.Files {
		if news, ok := replaced[f]; ok && !done[f] {
			out = append(out, news...)
		}
	}
	ws.Instances = out
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
