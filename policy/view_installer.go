package policy

import (
	"slices"

	"github.com/kube-proxy-lint/kube-proxy-lint/checker"
)

// InstallerView is the installer of an installer instance: which installer, its settings as
// written and where they are.
type InstallerView struct {
	// Name is kubeadm, kind, kops, kubespray, k3s, rke2, rke1, talos, eks, gardener, aks,
	// kubekey, k0s, kubeone, aks-engine, kubeasz, ack, sealos or cluster-api.
	Name string `json:"name"`
	// Doc is the ID of the document holding the settings; empty for text sources (INI
	// inventories, Terraform, install command lines).
	Doc string `json:"doc,omitempty"`
	// File is the real file holding the settings.
	File string `json:"file"`
	// ModeKey names the mode setting as users write it ("networking.kubeProxyMode").
	ModeKey string `json:"modeKey"`
	// Mode is the explicit mode as written, null when the installer config sets none.
	Mode *InstallerSettingView `json:"mode"`
	// DefaultMode is the mode the installer uses at the target when none is set.
	DefaultMode string `json:"defaultMode"`
	// Disabled is the setting that disables or replaces kube-proxy, null when none does.
	Disabled *InstallerSettingView `json:"disabled"`
	// IPVS are the installer's ipvs-only knobs (kube_proxy_scheduler, ipvsScheduler, ...).
	IPVS []InstallerSettingView `json:"ipvs"`
	// Anchor is where a finding about an absent setting goes.
	Anchor *Location `json:"anchor"`
	// Remains is false for an installer that disables kube-proxy and carries no kube-proxy
	// setting any more.
	Remains bool `json:"remains"`
}

// InstallerSettingView is one installer setting as written.
type InstallerSettingView struct {
	// Key is the setting's name as written ("kube_proxy_scheduler", "ipvsScheduler").
	Key string `json:"key"`
	// Value is the value as written, without quotes.
	Value string `json:"value"`
	// Normalized is the kube-proxy spelling of a mode value, "" for other settings.
	Normalized string `json:"normalized"`
	// Placeholder is true when the value comes from a template or variable.
	Placeholder bool `json:"placeholder"`
	// Location spans the key; ValueLocation the value.
	Location      *Location `json:"location"`
	ValueLocation *Location `json:"valueLocation"`
	// Doc and Path locate the setting in a YAML document; both are absent for text sources.
	Doc  string       `json:"doc,omitempty"`
	Path checker.Path `json:"path,omitempty"`
}

// installerDocs lists, once each, the documents holding an installer instance's settings:
// its own document, those of its mode, switch, ipvs knobs and extra args.
func installerDocs(in InstanceView) []string {
	ins := in.Installer
	if ins == nil {
		return nil
	}
	var out []string
	add := func(id string) {
		if id != "" && !slices.Contains(out, id) {
			out = append(out, id)
		}
	}
	add(ins.Doc)
	for _, s := range []*InstallerSettingView{ins.Mode, ins.Disabled} {
		if s != nil {
			add(s.Doc)
		}
	}
	for _, s := range ins.IPVS {
		add(s.Doc)
	}
	for _, f := range in.Flags {
		add(f.Doc)
	}
	return out
}
