package checker

import "github.com/kube-proxy-lint/kube-proxy-lint/checker/text"

// Installer names, as Installer.Name holds them.
const (
	InstallerKubeadm   = "kubeadm"
	InstallerKind      = "kind"
	InstallerKops      = "kops"
	InstallerKubespray = "kubespray"
	InstallerK3s       = "k3s"
	InstallerRKE2      = "rke2"
	InstallerRKE1      = "rke1"
	InstallerTalos     = "talos"
	InstallerEKS       = "eks"
	InstallerGardener  = "gardener"
	InstallerAKS       = "aks"
	InstallerKubeKey   = "kubekey"
	InstallerK0s       = "k0s"
	InstallerKubeOne   = "kubeone"
	InstallerAKSEngine = "aks-engine"
	InstallerKubeasz   = "kubeasz"
	InstallerACK       = "ack"
	InstallerSealos    = "sealos"
	InstallerCAPI      = "cluster-api"
	// InstallerScript is a script that switches a running cluster's kube-proxy mode (sed on
	// the kube-proxy ConfigMap, kubectl patch).
	InstallerScript = "script"
)

// Installer describes a kube-proxy that an installer or distribution configures (an
// Instance of Kind InstanceInstaller): which installer, where its settings are, the mode it
// sets in its own vocabulary and the mode it uses when none is set.
//
// The mode an installer instance runs with is resolved by Instance.Mode in this order: the
// KubeProxyConfiguration in Instance.Config when the installer embeds one (kubeadm's document),
// else a proxy-mode flag among Instance.Flags (the installer's extra args: k3s kube-proxy-arg,
// RKE1 extra_args, Talos extraArgs), else Mode, else DefaultMode at the target.
//
// For Rego policies (data.kube_proxy_lint instances): Name, Mode.Value / Mode.Normalized,
// Disabled (non-nil when the installer disables or replaces kube-proxy) and DefaultMode are
// the fields to read.
type Installer struct {
	// Name is one of the Installer* constants.
	Name string
	// Doc is the YAML document holding the settings; nil for text sources (INI inventories,
	// Terraform, install command lines).
	Doc *Document `json:"-"`
	// File is the real file holding the settings (for merged sources such as kubespray
	// group_vars, the file holding the mode or else the first setting).
	File *File `json:"-"`
	// Anchor and AnchorEnd span where a finding about an absent setting goes: the enclosing
	// block's key (networking:, kubeProxy:) or the document's kind line.
	Anchor, AnchorEnd Position
	// ModeKey names the mode setting as users write it: "networking.kubeProxyMode",
	// "kube_proxy_mode", "spec.kubernetes.kubeProxy.mode".
	ModeKey string
	// Mode is the explicit mode setting, nil when the installer config does not set one.
	Mode *InstallerSetting
	// Modes maps each mode value the installer accepts (its own spelling) to the kube-proxy
	// mode it selects; "none" style values map to "".
	Modes map[string]string
	// Defaults is the installer's default mode by target version, oldest first.
	Defaults []ModeSince
	// DefaultWhy says where the default comes from, for messages: "kubespray's role default".
	DefaultWhy string
	// Disabled is set when the installer config disables kube-proxy or replaces it (kind
	// kubeProxyMode none, kops enabled false, disable-kube-proxy, Talos disabled, Gardener
	// enabled false, kubespray kube_proxy_remove, kubeadm proxy.disabled or skipPhases
	// addon/kube-proxy, AKS kubeProxyConfig.enabled false). Its Value is as written.
	Disabled *InstallerSetting
	// IPVS are ipvs-only knobs of the installer (kube_proxy_strict_arp, ipvsScheduler,
	// ipvsConfig.scheduler, ...): kube-proxy reads them only in ipvs mode.
	IPVS []InstallerSetting
	// Gates are feature gates set through installer fields (kops spec.kubeProxy.featureGates,
	// Gardener featureGates) rather than flags.
	Gates []GateSetting
	// NodePortAddresses is the installer's nodePortAddresses setting (kubespray
	// kube_proxy_nodeport_addresses), nil when unset.
	NodePortAddresses *InstallerSetting
	// SetMode, when set, returns the edit that makes the installer's configuration choose
	// kube-proxy mode spelled (in the installer's spelling) where the mode is not one scalar to
	// replace: a setting to write down where the installer's default applies (KubeKey
	// proxyMode, sealos's KubeProxyConfiguration document, ACK proxy_mode), or a section to
	// swap (KubeOne). It reports false when the file's layout leaves no safe place.
	SetMode func(spelled string) (TextEdit, bool) `json:"-"`
	// Patches are KubeProxyConfiguration documents that patch the configuration the
	// installer generates (kind kubeadmConfigPatches). They belong to this kube-proxy and are
	// not kube-proxies of their own; the one that sets the mode is also Instance.Config.
	Patches []*Document `json:"-"`
	// Version is the installer's own version when known (Talos "1.8"), which may decide its
	// default mode.
	Version string
}

// ModeSince is an installer default mode from a Kubernetes version on.
type ModeSince struct {
	Since Version
	Mode  string
}

// InstallerSetting is one setting written in an installer's file.
type InstallerSetting struct {
	// Key is the setting's name as written ("kube_proxy_mode", "proxyMode", "disable-kube-proxy").
	Key string
	// Value is the value as written, without quotes.
	Value string
	// Normalized is the kube-proxy spelling of a mode value ("IPVS" -> "ipvs"), "" when the
	// value is not one the installer accepts.
	Normalized string
	// Pos and End span the key (or the whole setting when it has no key of its own);
	// ValuePos and ValueEnd span the value without its quotes, so that replacing that range
	// changes the value and keeps the quoting.
	Pos, End           Position
	ValuePos, ValueEnd Position
	// TokenPos and TokenEnd span the value as written, its quotes included, where findings
	// and notes about the value point (as they do for any YAML value); zero when the value
	// is not quoted, and Span falls back to ValuePos.
	TokenPos, TokenEnd Position
	// Doc and Path locate the setting in a YAML document; both are empty for text sources.
	Doc  *Document `json:"-"`
	Path Path
	// Placeholder is true when the value comes from a template or variable.
	Placeholder bool
	// Remove deletes the setting (its line), when that is a safe edit.
	Remove []TextEdit `json:",omitempty"`
	// Values holds a list value's items (kube_proxy_nodeport_addresses).
	Values []string `json:",omitempty"`
}

// Ref returns the object reference of the setting's document, or nil.
func (s *InstallerSetting) Ref() *ObjectRef {
	if s == nil || s.Doc == nil {
		return nil
	}
	return s.Doc.Ref()
}

// Span returns where findings and notes about the setting's value point: the value as
// written, quotes included.
func (s *InstallerSetting) Span() (Position, Position) {
	if s.TokenPos.IsValid() {
		return s.TokenPos, s.TokenEnd
	}
	return s.ValuePos, s.ValueEnd
}

// ValueEdit returns an edit replacing the setting's value with text.
func (s *InstallerSetting) ValueEdit(text string) (TextEdit, bool) {
	if s == nil || !s.ValuePos.IsValid() || s.ValueEnd.Offset < s.ValuePos.Offset || s.ValueEnd.Filename != s.ValuePos.Filename {
		return TextEdit{}, false
	}
	return TextEdit{Pos: s.ValuePos, End: s.ValueEnd, NewText: text}, true
}

// DefaultMode returns the mode the installer uses at target when none is set.
func (i *Installer) DefaultMode(target Version) string {
	mode := DefaultMode(target, false)
	for _, d := range i.Defaults {
		if !target.Less(d.Since) {
			mode = d.Mode
		}
	}
	return mode
}

// DefaultChanges reports whether the installer's default mode at target differs from its
// default before 1.40 (the release in which upstream's default changes), and both defaults.
// Installers that pin their own default (kubespray ipvs, k3s iptables, kind iptables) never
// change.
func (i *Installer) DefaultChanges(target Version) (before, at string, changes bool) {
	before = i.DefaultMode(Version{1, 39})
	at = i.DefaultMode(target)
	changes = false
	for _, d := range i.Defaults {
		if d.Mode != before {
			changes = true
		}
	}
	return before, at, changes
}

// ModeValue returns the vocabulary's kube-proxy mode for value v as written, and whether
// the installer accepts v.
func (i *Installer) ModeValue(v string) (string, bool) {
	m, ok := i.Modes[v]
	return m, ok
}

// ModeSpelling returns how the installer spells kube-proxy mode m ("nftables" -> "NFTables"
// for Gardener), or "" when it has no such value.
func (i *Installer) ModeSpelling(m string) string {
	best := ""
	for k, v := range i.Modes {
		// Prefer the lowercase spelling when the vocabulary has several.
		if v == m && (best == "" || k == m) {
			best = k
		}
	}
	return best
}

// Accepted lists the installer's mode values, sorted, for messages.
func (i *Installer) Accepted() []string {
	out := make([]string, 0, len(i.Modes))
	for k := range i.Modes {
		out = append(out, k)
	}
	for a := 1; a < len(out); a++ {
		for b := a; b > 0 && out[b] < out[b-1]; b-- {
			out[b], out[b-1] = out[b-1], out[b]
		}
	}
	return out
}

// Describe names the installer's configuration for messages: "kind Cluster dev".
func (i *Installer) Describe() string {
	if i.Doc != nil {
		if r := i.Doc.Ref(); r != nil && r.Kind != "" {
			s := i.Name + " " + r.Kind
			if r.Name != "" {
				s += " " + r.Name
			}
			return s
		}
	}
	return i.Name + " config"
}

// installerMode resolves the mode of an installer instance without an embedded
// KubeProxyConfiguration (see Installer).
func (in *Instance) installerMode(target Version) Setting {
	ins := in.Installer
	if f := in.Flag("proxy-mode"); f != nil && f.Value != "" {
		if text.HasPlaceholder(f.Value) {
			return Setting{Origin: OriginUnknown, Flag: f}
		}
		return Setting{Value: f.Value, Origin: OriginFlag, Flag: f}
	}
	if s := ins.Mode; s != nil {
		if s.Placeholder {
			return Setting{Origin: OriginUnknown, Doc: s.Doc, Path: s.Path, Installer: s}
		}
		v := s.Normalized
		if v == "" {
			v = s.Value
		}
		return Setting{Value: v, Origin: OriginInstaller, Doc: s.Doc, Path: s.Path, Installer: s}
	}
	if ins.Doc != nil && ins.Doc.Open {
		// A whole-body placeholder in the installer's document may set the mode.
		return Setting{Origin: OriginUnknown, Doc: ins.Doc}
	}
	return Setting{Value: ins.DefaultMode(target), Origin: OriginInstallerDefault}
}

// installerNodePortAddresses returns the installer's nodePortAddresses setting.
func (in *Instance) installerNodePortAddresses() ([]string, Setting, bool) {
	s := in.Installer.NodePortAddresses
	if s == nil || s.Placeholder || len(s.Values) == 0 {
		return nil, Setting{}, false
	}
	return s.Values, Setting{Origin: OriginInstaller, Doc: s.Doc, Path: s.Path, Installer: s}, true
}

// IsDisabled reports whether the instance is an installer's kube-proxy that the installer
// disables or replaces.
func (in *Instance) IsDisabled() bool {
	return in.Installer != nil && in.Installer.Disabled != nil
}
