package rules

import (
	"fmt"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/kube-proxy-lint/kube-proxy-lint/checker"
)

// KP103 flags mode values that kube-proxy rejects at startup.
var KP103 = &checker.Rule{
	ID:       "KP103",
	Name:     "mode-invalid",
	Severity: checker.SeverityError,
	Kinds:    []string{"KubeProxyConfiguration", "ConfigMap", "DaemonSet", "Pod"},
	Doc: withProse("kp103_mode_invalid.md", checker.Doc{
		Title: "kube-proxy mode is not one kube-proxy accepts",
		Before: `apiVersion: kubeproxy.config.k8s.io/v1alpha1
kind: KubeProxyConfiguration
mode: NFTables
`,
		After: `apiVersion: kubeproxy.config.k8s.io/v1alpha1
kind: KubeProxyConfiguration
mode: nftables
`,
		Since: "0.1.0",
		Fixes: []checker.FixDoc{
			{Text: `Repair the letter case or blanks of a mode value (` + "`IPVS`" + ` becomes ` + "`ipvs`" + `), or write an installer's mode in its own spelling. kube-proxy rejects the value as it is, so the repair changes what runs.`, Safety: checker.Unsafe, Preferred: true},
		},
	}),
	Run: runKP103,
}

// kp103LinuxModes are the modes Linux kube-proxy accepts (ipvs subject to its gate).
var kp103LinuxModes = []string{checker.ModeIPTables, checker.ModeNFTables, checker.ModeIPVS}

func runKP103(p *checker.Pass) error {
	seen := findingKeys{}
	for _, in := range p.Workspace.Instances {
		if in.IsDisabled() {
			continue
		}
		p := p.ForInstance(in)
		m := in.Mode(p.Target())
		if m.Origin == checker.OriginInstaller {
			kp103Installer(p, in, m, seen)
			continue
		}
		if m.Origin != checker.OriginConfig && m.Origin != checker.OriginFlag {
			continue
		}
		msg, fixTo, related := kp103Check(p.Target(), in, m.Value)
		if msg == "" {
			continue
		}
		f := checker.Finding{Severity: checker.SeverityError, Message: msg, Related: append(instanceRelated(in), related...)}
		var fix checker.Fix
		canFix := false
		fixMsg := "Change mode to " + fixTo
		if m.Flag != nil {
			fl := m.Flag
			f.Pos, f.End, f.Object, f.Path = fl.Pos, fl.End, fl.Doc.Ref(), fl.NodePath
			f.Related = append(f.Related, fl.Via...)
			if fixTo != "" {
				fix, canFix = replaceFlagValueFix(fl, fixTo, fixMsg)
			}
		} else {
			_, v := m.Doc.Lookup(m.Path)
			if v == nil || v.Kind != yaml.ScalarNode || v.ShortTag() != "!!str" {
				// Numbers, booleans: a type error that KP001 reports.
				continue
			}
			f.Pos, f.End = m.Doc.NodePos(v), m.Doc.NodeEnd(v)
			f.Object, f.Path = m.Doc.Ref(), m.Path
			if fixTo != "" {
				fix, canFix = replaceScalarFix(m.Doc, v, fixTo, fixMsg)
			}
		}
		if canFix {
			f.Fixes = []checker.Fix{fix}
		}
		if seen.first(f.Pos, f.Message) {
			p.Report(f)
		}
	}
	return nil
}

// kp103Check returns what is wrong with mode v of instance in at target t (empty when
// nothing), the corrected spelling to offer as a fix, and related locations.
func kp103Check(t checker.Version, in *checker.Instance, v string) (msg, fixTo string, related []checker.Related) {
	norm := strings.ToLower(strings.TrimSpace(v))
	windows := runsOnWindows(in)
	valid := kp103LinuxModes
	if windows {
		valid = []string{checker.ModeKernelspace}
	}
	isValid := func(s string) bool {
		for _, m := range valid {
			if m == s {
				return true
			}
		}
		return false
	}
	switch {
	case isValid(v):
		if v != checker.ModeIPVS || !t.AtLeast(37) || t.AtLeast(46) {
			return "", "", nil
		}
		g, ok := in.Gate(gateKubeProxyIPVS)
		if !ok || g.Value || g.Invalid {
			return "", "", nil
		}
		if pos, end, ok := g.Where(); ok {
			related = append(related, checker.Related{Pos: pos, End: end, Message: "KubeProxyIPVS is set to false here"})
		}
		return "mode ipvs is rejected because feature gate KubeProxyIPVS is false: kube-proxy exits at startup", "", related
	case norm == "userspace":
		if !t.AtLeast(26) {
			return "", "", nil
		}
		return fmt.Sprintf("mode %s was removed in 1.26: kube-proxy exits at startup", v), "", nil
	case isValid(norm):
		var how []string
		if strings.TrimSpace(v) != v {
			how = append(how, "blanks are part of the value")
		}
		if strings.ToLower(v) != v {
			how = append(how, "modes are case-sensitive")
		}
		return fmt.Sprintf("mode %q is not accepted (%s): use %s", v, strings.Join(how, ", "), norm), norm, nil
	case windows && (norm == checker.ModeIPTables || norm == checker.ModeNFTables || norm == checker.ModeIPVS):
		return fmt.Sprintf("mode %s does not exist on Windows: kube-proxy on Windows accepts only kernelspace", v), "", nil
	case !windows && norm == checker.ModeKernelspace:
		return fmt.Sprintf("mode %s exists only on Windows: kube-proxy on Linux exits at startup", v), "", nil
	}
	msg = fmt.Sprintf("mode %q is not a kube-proxy mode: kube-proxy exits at startup", v)
	if s := kp103Closest(norm, valid); s != "" {
		msg += "; did you mean " + s + "?"
	}
	return msg, "", nil
}

// kp103Closest returns the valid mode within a small edit distance of s, or "".
func kp103Closest(s string, valid []string) string {
	best, bestD := "", len(s)+100
	for _, m := range valid {
		if d := checker.EditDistance(s, m); d < bestD {
			best, bestD = m, d
		}
	}
	limit := 2
	if len(s) >= 8 {
		limit = 3
	}
	if bestD <= limit {
		return best
	}
	return ""
}
