package load

import (
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/kube-proxy-lint/kube-proxy-lint/checker"
	"github.com/kube-proxy-lint/kube-proxy-lint/checker/text"
)

// EKS: the kube-proxy add-on's configuration values, a JSON (or YAML) string such as
// {"mode": "ipvs", "ipvs": {"scheduler": "rr"}}: in an eksctl ClusterConfig
// (addons[].configurationValues) or in Terraform (installer_terraform.go). The string is decoded
// as a document of its own whose positions map back into the string. The add-on defaults to
// iptables.

func init() {
	docInstallers = append(docInstallers, eksctlInstances)
}

var eksModes = map[string]string{"iptables": checker.ModeIPTables, "ipvs": checker.ModeIPVS, "nftables": checker.ModeNFTables}

func newEKSInstaller(file *checker.File) *checker.Installer {
	return &checker.Installer{
		Name: checker.InstallerEKS, File: file, ModeKey: "configurationValues mode",
		Modes: eksModes, Defaults: fixedDefault(checker.ModeIPTables),
		DefaultWhy: "the EKS kube-proxy add-on defaults to iptables",
	}
}

func eksctlInstances(_ *checker.Workspace, d *checker.Document) []*checker.Instance {
	if d.Kind != "ClusterConfig" || !strings.HasPrefix(d.APIVersion, "eksctl.io/") {
		return nil
	}
	_, addons := d.Lookup(checker.Path{"addons"})
	if addons == nil || addons.Kind != yaml.SequenceNode {
		return nil
	}
	var out []*checker.Instance
	for i, a := range addons.Content {
		if strNode(a, "name") != "kube-proxy" {
			continue
		}
		ap := checker.Path{"addons"}.Append(i)
		ins := newEKSInstaller(d.File.Outer())
		ins.Doc = d
		docAnchor(ins, d, ap.Append("name"))
		cvp := ap.Append("configurationValues")
		_, cv := d.Lookup(cvp)
		if cv != nil && cv.Kind == yaml.ScalarNode && !text.HasPlaceholder(cv.Value) {
			if inner := embeddedValues(d, cv, cvp); inner != nil {
				eksSettings(ins, inner)
			}
		}
		label := "EKS kube-proxy add-on in " + d.File.Outer().Path
		if d.Name != "" {
			label = "EKS kube-proxy add-on of cluster " + d.Name
		}
		out = append(out, newInstallerInstance(ins, label))
	}
	return out
}

// embeddedValues decodes scalar n of d (a JSON or YAML string) as a document whose positions
// map back to d's file; nil unless it is a mapping.
func embeddedValues(d *checker.Document, n *yaml.Node, p checker.Path) *checker.Document {
	e := embeddedDoc(d, n, p)
	if e == nil || e.Node.Kind != yaml.MappingNode {
		return nil
	}
	return e
}

// embeddedDoc decodes scalar n of d at path p as a document whose positions map back to d's
// file, or nil when it does not decode. The document is not added to d.Embedded: it is a
// value of an installer setting, not a document of its own.
func embeddedDoc(d *checker.Document, n *yaml.Node, p checker.Path) *checker.Document {
	inner := &checker.File{Path: d.File.Path, Content: []byte(n.Value), Parent: d.File, ParentMap: checker.ScalarOffsetMap(d.File, n)}
	inner.Lines = text.NewLineIndex(inner.Content)
	if len(parseFile(inner)) > 0 || len(inner.Docs) == 0 || inner.Docs[0].Node == nil {
		return nil
	}
	e := inner.Docs[0]
	e.Parent, e.ParentPath = d, p
	return e
}

// eksSettings reads the add-on configuration values document e.
func eksSettings(ins *checker.Installer, e *checker.Document) {
	ins.Mode = modeSetting(ins, e, checker.Path{"mode"})
	ins.IPVS = append(ins.IPVS, ipvsSection(e, checker.Path{"ipvs"})...)
	if s := yamlSetting(e, checker.Path{"nodePortAddresses"}); s != nil && len(s.Values) > 0 {
		ins.NodePortAddresses = s
	}
	ins.Gates = gatesSetting(e, checker.Path{"featureGates"})
}
