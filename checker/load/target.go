package load

import (
	"bytes"
	"path"
	"regexp"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/kube-proxy-lint/kube-proxy-lint/checker"
	"github.com/kube-proxy-lint/kube-proxy-lint/checker/cluster"
)

var kindNodeRe = regexp.MustCompile(`kindest/node:(v?\d+\.\d+(?:\.\d+)?)`)

// controlPlaneImages are the images whose tag is the Kubernetes version of the cluster they
// run in: kube-proxy and the control plane of static Pods.
var controlPlaneImages = map[string]string{
	"kube-proxy": "kube-proxy image tag", "kube-apiserver": "kube-apiserver image tag",
	"kube-controller-manager": "kube-controller-manager image tag", "kube-scheduler": "kube-scheduler image tag",
	"hyperkube": "hyperkube image tag",
}

// componentSources name the versions of one component rather than of a cluster definition
// (checker.VersionSource.Cluster): image tags.
var componentSources = map[string]bool{chartAppVersion: true}

const chartAppVersion = "kube-proxy chart appVersion"

func init() {
	for _, what := range controlPlaneImages {
		componentSources[what] = true
	}
}

// versionSink collects the version sources of a workspace.
type versionSink struct{ out []checker.VersionSource }

// consider records s as a version source when it parses as a Kubernetes version; placeholders
// and words such as "stable" do not.
func (k *versionSink) consider(s, what string, d *checker.Document, p checker.Path) {
	v, err := checker.ParseVersion(strings.TrimSpace(s))
	if err != nil {
		return
	}
	pos, _, ok := d.ValuePos(p)
	if !ok {
		return
	}
	src := checker.VersionSource{Version: v, What: what, Pos: pos, Cluster: !componentSources[what]}
	if what == chartAppVersion {
		src.Chart = path.Dir(d.File.Outer().Path)
		if src.Chart == "." {
			src.Chart = ""
		}
	}
	k.out = append(k.out, src)
}

// detectVersions lists where the repository names the Kubernetes version of a cluster (RULES.md
// §1, "Target version per scope"): kube-proxy and control-plane image tags, kubeadm
// kubernetesVersion, kind node images, kops kubernetesVersion, sealos Cluster images, KubeKey,
// KubeOne and k0sctl versions, kubespray kube_version, RKE1 kubernetes_version, the
// appVersion of a kube-proxy Helm chart, and the installers of detectInstallerTarget.
func detectVersions(ws *checker.Workspace) []checker.VersionSource {
	k := &versionSink{}
	for _, f := range ws.Files {
		terraformVersions(f, k)
	}
	for _, d := range ws.Docs {
		docVersions(d, k)
		detectInstallerTarget(d, k.consider)
		spec := podSpecPaths[d.Kind]
		if spec == nil {
			continue
		}
		for i := 0; d.Has(spec.Append("containers", i)); i++ {
			p := spec.Append("containers", i, "image")
			img := d.Str(p)
			if what, ok := controlPlaneImages[imageName(img)]; ok {
				k.consider(imageTag(img), what, d, p)
			}
		}
	}
	return k.out
}

// docVersions offers the versions of the cluster definitions that are not installers of
// their own (installer_target.go has those).
// terraformVersionRe finds the Kubernetes version attributes of Terraform cluster resources and
// modules (EKS cluster_version, AKS/GKE kubernetes_version) and the EKS add-on version
// ("v1.33.0-eksbuild.2" is 1.33), with a literal value.
var terraformVersionRe = regexp.MustCompile(`(?m)^[ \t]*(cluster_version|kubernetes_version|addon_version)[ \t]*=[ \t]*"(v?1\.[0-9]{1,3}(?:\.[0-9]+)?(?:-eksbuild\.[0-9]+)?)"`)

// terraformWhat names the Terraform version attributes for people.
var terraformWhat = map[string]string{
	"cluster_version": "Terraform cluster_version", "kubernetes_version": "Terraform kubernetes_version",
	"addon_version": "Terraform EKS addon_version",
}

// terraformVersions reads the versions a Terraform file names for its cluster.
func terraformVersions(f *checker.File, k *versionSink) {
	if !strings.HasSuffix(f.Path, ".tf") || f.Parent != nil || !bytes.Contains(f.Content, []byte("_version")) {
		return
	}
	for _, m := range terraformVersionRe.FindAllSubmatchIndex(f.Content, -1) {
		v, err := checker.ParseVersion(string(f.Content[m[4]:m[5]]))
		if err != nil {
			continue
		}
		what := terraformWhat[string(f.Content[m[2]:m[3]])]
		k.out = append(k.out, checker.VersionSource{Version: v, What: what, Pos: f.Lines.Position(f.Path, m[4]), Cluster: true})
	}
}

func docVersions(d *checker.Document, k *versionSink) {
	api := d.APIVersion
	switch {
	case d.Kind == "ClusterConfiguration" && cluster.JoinOnly(kubeadmFileOf(d)):
		// kubeadm join ignores the ClusterConfiguration of a join file (or join string).
	case d.Kind == "ClusterConfiguration":
		k.consider(d.Str(checker.Path{"kubernetesVersion"}), "kubeadm kubernetesVersion", d, checker.Path{"kubernetesVersion"})
	case d.Kind == "Cluster" && strings.HasPrefix(api, "apps.sealos.io/"):
		sealosVersions(d, k)
	case d.Kind == "Cluster" && strings.HasPrefix(api, "kubekey.kubesphere.io/"):
		k.consider(d.Str(checker.P("spec", "kubernetes", "version")), "KubeKey spec.kubernetes.version", d, checker.P("spec", "kubernetes", "version"))
	case d.Kind == "Cluster" && strings.HasPrefix(api, "k0sctl.k0sproject.io/"):
		k.consider(d.Str(checker.P("spec", "k0s", "version")), "k0sctl spec.k0s.version", d, checker.P("spec", "k0s", "version"))
	case d.Kind == "Cluster" && strings.HasPrefix(api, "provisioning.cattle.io/"):
		k.consider(d.Str(checker.Path{"spec", "kubernetesVersion"}), "Rancher spec.kubernetesVersion", d, checker.Path{"spec", "kubernetesVersion"})
	case d.Kind == "Cluster" && strings.HasPrefix(api, "kops.k8s.io/"):
		k.consider(d.Str(checker.Path{"spec", "kubernetesVersion"}), "kops kubernetesVersion", d, checker.Path{"spec", "kubernetesVersion"})
	case d.Kind == "Cluster" && api == "":
		// kops, written without apiVersion (older docs and tests).
		k.consider(d.Str(checker.Path{"spec", "kubernetesVersion"}), "kops kubernetesVersion", d, checker.Path{"spec", "kubernetesVersion"})
	case d.Kind == "Cluster" && !strings.Contains(api, "cluster.x-k8s.io"):
		// Another tool's Cluster naming its Kubernetes version the same way.
		k.consider(d.Str(checker.Path{"spec", "kubernetesVersion"}), "Cluster spec.kubernetesVersion", d, checker.Path{"spec", "kubernetesVersion"})
		// kind.
		for i := 0; d.Has(checker.P("nodes", i)); i++ {
			p := checker.P("nodes", i, "image")
			if m := kindNodeRe.FindStringSubmatch(d.Str(p)); m != nil {
				k.consider(m[1], "kind node image", d, p)
			}
		}
	case d.Kind == "KubeOneCluster" && strings.HasPrefix(api, "kubeone.k8c.io/"):
		k.consider(d.Str(checker.P("versions", "kubernetes")), "KubeOne versions.kubernetes", d, checker.P("versions", "kubernetes"))
	case d.Kind == "" && d.Parent == nil:
		plainVersions(d, k)
	}
}

// sealosVersions reads the Kubernetes cluster image of a sealos Clusterfile
// (spec.image: labring/kubernetes:v1.25.0, a string or a list).
func sealosVersions(d *checker.Document, k *versionSink) {
	p := checker.P("spec", "image")
	_, v := d.Lookup(p)
	if v == nil {
		return
	}
	check := func(img string, p checker.Path) {
		if strings.HasPrefix(imageName(img), "kubernetes") {
			k.consider(imageTag(img), "sealos Cluster image", d, p)
		}
	}
	switch v.Kind {
	case yaml.ScalarNode:
		check(v.Value, p)
	case yaml.SequenceNode:
		for i, e := range v.Content {
			if e.Kind == yaml.ScalarNode {
				check(e.Value, p.Append(i))
			}
		}
	}
}

// plainVersions reads versions from documents without a kind: kubespray inventory variables
// (kube_version in group_vars/host_vars), an RKE1 cluster.yml (kubernetes_version) and the
// Chart.yaml of a kube-proxy chart (appVersion).
func plainVersions(d *checker.Document, k *versionSink) {
	file := d.File.Outer().Path
	switch {
	case strings.Contains("/"+file, "/group_vars/") || strings.Contains("/"+file, "/host_vars/"):
		k.consider(d.Str(checker.P("kube_version")), "kubespray kube_version", d, checker.P("kube_version"))
	case d.Has(checker.P("services", "kubeproxy")) || (d.Has(checker.P("nodes")) && d.Has(checker.P("services"))):
		k.consider(d.Str(checker.P("kubernetes_version")), "RKE1 kubernetes_version", d, checker.P("kubernetes_version"))
	case path.Base(file) == "Chart.yaml" && strings.Contains(d.Str(checker.P("name")), "kube-proxy"):
		k.consider(d.Str(checker.P("appVersion")), chartAppVersion, d, checker.P("appVersion"))
	}
}

// setTargets records the version sources and the targets: the override for every file when
// given, else each file's own (checker.Workspace.TargetOf).
func setTargets(ws *checker.Workspace, override *checker.Version) {
	ws.VersionSources = detectVersions(ws)
	if len(ws.Rendered) > 0 {
		// A version a chart renders is written in its values file or template.
		for i := range ws.VersionSources {
			ws.VersionSources[i].In = ws.VersionSources[i].Pos.Filename
			ws.VersionSources[i].Pos = ws.MapPosition(ws.VersionSources[i].Pos)
		}
	}
	if override != nil {
		ws.Target = checker.Target{Version: *override, Source: "--target-version"}
		ws.TargetFixed = true
	}
	ws.IndexTargets()
}
