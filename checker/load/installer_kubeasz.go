package load

import (
	"path"
	"strings"

	"github.com/kube-proxy-lint/kube-proxy-lint/checker"
)

// kubeasz: the cluster inventory (clusters/NAME/hosts, example/hosts.*) sets PROXY_MODE
// ("iptables" or "ipvs") in [all:vars]; kubeasz's kube-proxy template writes it as the mode.
// kubeasz has no default of its own: an inventory without PROXY_MODE is not read.

func init() {
	nameFilters = append(nameFilters, isKubeaszName)
	textClassifiers = append(textClassifiers, func(name string, content []byte) bool {
		return isKubeaszName(name) && strings.Contains(string(content), "PROXY_MODE")
	})
	wsInstallers = append(wsInstallers, kubeaszInstances)
}

var kubeaszVars = map[string]bool{"PROXY_MODE": false}

func isKubeaszName(name string) bool {
	b := path.Base(name)
	return b == "hosts" || strings.HasPrefix(b, "hosts.")
}

func kubeaszInstances(ws *checker.Workspace) []*checker.Instance {
	var out []*checker.Instance
	for _, f := range ws.Files {
		if f.Parent != nil || f.Format != checker.FormatText || !isKubeaszName(f.Path) || !strings.Contains(string(f.Content), "PROXY_MODE") {
			continue
		}
		var mode *checker.InstallerSetting
		rank := -1
		for _, v := range iniVars(f, kubeaszVars) {
			if v.rank >= rank && (v.set.Value != "" || v.set.Placeholder) {
				mode, rank = v.set, v.rank
			}
		}
		if mode == nil {
			continue
		}
		mode.Normalized = lowerModes[mode.Value]
		mode.Remove = nil
		ins := &checker.Installer{
			Name: checker.InstallerKubeasz, File: f, ModeKey: "PROXY_MODE", Mode: mode,
			Modes: lowerModes, Defaults: fixedDefault(checker.ModeIPTables),
			DefaultWhy: "kubeasz needs PROXY_MODE",
			Anchor:     mode.Pos, AnchorEnd: mode.End,
		}
		out = append(out, newInstallerInstance(ins, "kubeasz inventory "+f.Path))
	}
	return out
}
