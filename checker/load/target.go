package load

import (
	"fmt"
	"regexp"

	"github.com/kube-proxy-lint/kube-proxy-lint/checker"
)

var kindNodeRe = regexp.MustCompile(`kindest/node:(v?\d+\.\d+(?:\.\d+)?)`)

// detectTarget picks the target version: the override, else the highest version the
// repository names (kube-proxy image tags, kubeadm kubernetesVersion, kind node images, kops
// kubernetesVersion), else the default.
func detectTarget(ws *checker.Workspace, override *checker.Version) checker.Target {
	if override != nil {
		return checker.Target{Version: *override, Source: "--target-version"}
	}
	var best *checker.Target
	consider := func(s, what string, d *checker.Document, p checker.Path) {
		v, err := checker.ParseVersion(s)
		if err != nil {
			return
		}
		pos, _, _ := d.ValuePos(p)
		if best == nil || best.Version.Less(v) {
			best = &checker.Target{Version: v, Source: fmt.Sprintf("%s at %s", what, pos), Pos: &pos}
		}
	}
	for _, d := range ws.Docs {
		switch d.Kind {
		case "ClusterConfiguration":
			consider(d.Str(checker.Path{"kubernetesVersion"}), "kubeadm kubernetesVersion", d, checker.Path{"kubernetesVersion"})
		case "Cluster":
			// kops.
			consider(d.Str(checker.Path{"spec", "kubernetesVersion"}), "kops kubernetesVersion", d, checker.Path{"spec", "kubernetesVersion"})
			// kind.
			for i := 0; ; i++ {
				p := checker.Path{"nodes", fmt.Sprint(i), "image"}
				if !d.Has(checker.Path{"nodes", fmt.Sprint(i)}) {
					break
				}
				if m := kindNodeRe.FindStringSubmatch(d.Str(p)); m != nil {
					consider(m[1], "kind node image", d, p)
				}
			}
		}
		detectInstallerTarget(d, consider)
		spec := podSpecPaths[d.Kind]
		if spec == nil {
			continue
		}
		for i := 0; d.Has(spec.Append("containers", i)); i++ {
			p := spec.Append("containers", i, "image")
			img := d.Str(p)
			if imageName(img) == "kube-proxy" {
				consider(imageTag(img), "kube-proxy image tag", d, p)
			}
		}
	}
	if best != nil {
		return *best
	}
	return checker.Target{Version: checker.DefaultTarget, Source: "default"}
}
