package checker

import (
	"strconv"
	"strings"

	"github.com/kube-proxy-lint/kube-proxy-lint/checker/text"

	"go.yaml.in/yaml/v3"
	kpv1 "k8s.io/kube-proxy/config/v1alpha1"
)

// InstanceKind says where an instance was found.
type InstanceKind int

// Instance kinds.
const (
	// InstanceWorkload is a container of a Pod, DaemonSet or other workload running kube-proxy.
	InstanceWorkload InstanceKind = iota
	// InstanceConfig is a KubeProxyConfiguration that no workload in the repository uses.
	InstanceConfig
	// InstanceCommand is a kube-proxy command line outside manifests: a script, a systemd
	// unit, a flag file.
	InstanceCommand
	// InstanceInstaller is a kube-proxy configured through an installer or distribution
	// (kubeadm, kind, kops, kubespray, k3s, Talos, EKS, ...).
	InstanceInstaller
)

// Instance is one kube-proxy: a workload container that runs it, or a KubeProxyConfiguration
// that no workload in the repository points at.
type Instance struct {
	Kind InstanceKind
	// Source is the file holding an InstanceCommand's command line.
	Source *File
	// Program spans the kube-proxy program word of a command line, where findings about
	// absent flags go.
	Program, ProgramEnd Position
	// Label describes the instance for messages: "DaemonSet kube-system/kube-proxy, container kube-proxy".
	Label string
	// Workload is the document running kube-proxy; nil for a standalone configuration.
	Workload *Document
	// Container is the path of the container inside Workload.
	Container Path
	// Windows is true when the workload is pinned to Windows nodes.
	Windows bool
	// Flags are the command-line flags in order.
	Flags []Flag
	// FlagsUnknown is set when the command line holds a placeholder that may carry more flags
	// (`{{ range .Values.args }}`, "$(EXTRA_ARGS)", `{{ toYaml .Values.extraArgs }}`): a flag
	// that does not show may still be set, so its setting is unknown, not the default.
	FlagsUnknown bool
	// Config is the KubeProxyConfiguration document in use, if found.
	Config *Document
	// ConfigVia lists how --config was resolved (volume mount, volume, ConfigMap key).
	ConfigVia []Related
	// ConfigUnresolved explains why a --config path could not be matched to a document in the
	// repository; the effective configuration is then unknown.
	ConfigUnresolved string
	// Installer describes the installer of an InstanceInstaller (nil for other kinds). Its
	// extra kube-proxy args are in Flags; an embedded KubeProxyConfiguration is in Config.
	Installer *Installer
}

// Flag is one kube-proxy command-line flag.
type Flag struct {
	// Name is the flag name without leading dashes.
	Name     string
	Value    string
	HasValue bool
	// Doc and Node are the document and the scalar that hold the flag; both are nil for flags
	// in text files (scripts, units, flag files).
	Doc  *Document
	Node *yaml.Node
	// NodePath is the field path of Node.
	NodePath Path
	// Pos and End span the flag (name and value); ValuePos spans the value.
	Pos, End           Position
	ValuePos, ValueEnd Position
	// ValueNode holds the value (Node, or the next argv item for "--flag value");
	// [ValueFrom, ValueTo) is the value's byte range in ValueNode.Value, without surrounding
	// shell quotes. ValueNode is nil for flags in text files.
	ValueNode          *yaml.Node
	ValueFrom, ValueTo int
	// Remove deletes the flag (and a separate value argument) from the source.
	Remove []TextEdit
	// Via notes where a flag set in another file is used: the $KUBE_PROXY_ARGS of a unit's
	// ExecStart for a flag of its EnvironmentFile=. Findings on the flag carry it as related.
	Via []Related
}

// Flag returns the last occurrence of flag name (the one that wins), or nil. It reads the
// flags from the end: a caller that needs the same flag for each flag looks it up once (the
// Rego input asked for --config once per flag: 80,000 flags took 33 s).
func (in *Instance) Flag(name string) *Flag {
	for i := len(in.Flags) - 1; i >= 0; i-- {
		if in.Flags[i].Name == name {
			return &in.Flags[i]
		}
	}
	return nil
}

// HasConfigFlag reports whether kube-proxy runs with --config.
func (in *Instance) HasConfigFlag() bool {
	return in.Kind == InstanceConfig || in.Flag("config") != nil ||
		(in.Kind == InstanceInstaller && in.Config != nil)
}

// KPC returns the typed configuration, or nil.
func (in *Instance) KPC() *kpv1.KubeProxyConfiguration {
	if in.Config == nil {
		return nil
	}
	c, _ := in.Config.Object.(*kpv1.KubeProxyConfiguration)
	return c
}

// Origin says where a setting's value comes from.
type Origin int

// Origins of settings.
const (
	// OriginUnknown: --config points to a file not in the repository.
	OriginUnknown Origin = iota
	OriginDefault
	OriginFlag
	OriginConfig
	// OriginInstaller: an installer setting in the installer's vocabulary (see Installer).
	OriginInstaller
	// OriginInstallerDefault: the installer's own default mode at the target.
	OriginInstallerDefault
)

// String names the origin.
func (o Origin) String() string {
	return [...]string{"unknown", "default", "flag", "config", "installer", "installer default"}[o]
}

// Setting is an effective value and where it comes from.
type Setting struct {
	Value  string
	Origin Origin
	// Doc and Path locate a config field; Flag locates a flag.
	Doc  *Document
	Path Path
	Flag *Flag
	// Installer locates an installer setting (also in text sources without Doc).
	Installer *InstallerSetting
}

// Where returns the position of the setting's source, and whether there is one.
func (s Setting) Where() (Position, Position, bool) {
	switch {
	case s.Flag != nil:
		return s.Flag.Pos, s.Flag.End, true
	case s.Installer != nil && s.Installer.ValuePos.IsValid():
		p, e := s.Installer.Span()
		return p, e, true
	case s.Doc != nil:
		// A scalar value is the evidence ("mode: ipvs" points at ipvs, as findings about
		// values do); a mapping or list is pointed at by its key.
		if _, v := s.Doc.Lookup(s.Path); v != nil && v.Kind == yaml.ScalarNode {
			if p, e, ok := s.Doc.ValuePos(s.Path); ok {
				return p, e, true
			}
		}
		if p, e, ok := s.Doc.KeyPos(s.Path); ok {
			return p, e, true
		}
		p, e := s.Doc.AbsentPos(s.Path)
		return p, e, true
	}
	return Position{}, Position{}, false
}

// Mode returns the proxy mode kube-proxy runs with at target, after --config, flags and
// defaults (RULES.md §1).
func (in *Instance) Mode(target Version) Setting {
	if in.Installer != nil && in.Config == nil {
		return in.installerMode(target)
	}
	if in.HasConfigFlag() {
		if in.Config == nil {
			return Setting{Origin: OriginUnknown}
		}
		if _, v := in.Config.Lookup(Path{"mode"}); v != nil && v.Kind == yaml.ScalarNode && v.Value != "" && v.Tag != "!!null" {
			if text.HasPlaceholder(v.Value) {
				return Setting{Origin: OriginUnknown, Doc: in.Config, Path: Path{"mode"}}
			}
			return Setting{Value: v.Value, Origin: OriginConfig, Doc: in.Config, Path: Path{"mode"}}
		}
		if in.Config.Open {
			// A whole-body placeholder may set the mode.
			return Setting{Origin: OriginUnknown, Doc: in.Config, Path: Path{"mode"}}
		}
		return Setting{Value: DefaultMode(target, in.Windows), Origin: OriginDefault, Doc: in.Config, Path: Path{"mode"}}
	}
	if f := in.Flag("proxy-mode"); f != nil && f.Value != "" {
		if text.HasPlaceholder(f.Value) {
			return Setting{Origin: OriginUnknown, Flag: f}
		}
		return Setting{Value: f.Value, Origin: OriginFlag, Flag: f}
	}
	if in.FlagsUnknown {
		return Setting{Origin: OriginUnknown}
	}
	return Setting{Value: DefaultMode(target, in.Windows), Origin: OriginDefault}
}

// GateSetting is a feature gate set explicitly.
type GateSetting struct {
	Name  string
	Value bool
	// Invalid is true when the value is not a boolean kube-proxy accepts; Raw is the value
	// as written (for a flag entry without "=", the whole entry).
	Invalid bool
	Raw     string
	Setting
}

// Where returns the position of the gate's source. A gate is named by its key, so a gate in
// a featureGates map is pointed at by its key (a flag, by the flag), unlike other settings,
// which point at their value.
func (g GateSetting) Where() (Position, Position, bool) {
	if g.Flag == nil && g.Installer == nil && g.Doc != nil {
		if p, e, ok := g.Doc.KeyPos(g.Path); ok {
			return p, e, true
		}
	}
	return g.Setting.Where()
}

// FeatureGates returns the gates set explicitly and honoured: the config's featureGates with
// --config, else every --feature-gates flag (pflag merges repeated ones).
func (in *Instance) FeatureGates() []GateSetting {
	var out []GateSetting
	if in.HasConfigFlag() {
		if in.Config == nil {
			return nil
		}
		_, m := in.Config.Lookup(Path{"featureGates"})
		if m == nil || m.Kind != yaml.MappingNode {
			return nil
		}
		for i := 0; i+1 < len(m.Content); i += 2 {
			k, v := m.Content[i], m.Content[i+1]
			if text.HasPlaceholder(k.Value) || nodeHasPlaceholder(v) {
				continue // unknown until the template is rendered
			}
			g := GateSetting{Name: k.Value, Raw: v.Value, Setting: Setting{Value: v.Value, Origin: OriginConfig, Doc: in.Config, Path: Path{"featureGates", k.Value}}}
			b, ok := YAML11Bool(v)
			g.Value, g.Invalid = b, !ok
			out = append(out, g)
		}
		return out
	}
	for i := range in.Flags {
		f := &in.Flags[i]
		if f.Name != "feature-gates" {
			continue
		}
		for _, kv := range strings.Split(f.Value, ",") {
			kv = strings.TrimSpace(kv)
			if kv == "" || text.HasPlaceholder(kv) {
				continue
			}
			name, val, hasEq := strings.Cut(kv, "=")
			g := GateSetting{Name: strings.TrimSpace(name), Raw: val, Setting: Setting{Value: val, Origin: OriginFlag, Flag: f}}
			b, err := strconv.ParseBool(strings.TrimSpace(val))
			g.Value, g.Invalid = b, err != nil || !hasEq
			if !hasEq {
				g.Raw = kv
			}
			out = append(out, g)
		}
	}
	if in.Installer != nil {
		out = append(out, in.Installer.Gates...)
	}
	return out
}

// YAML11Bool decodes a scalar the way kube-proxy's YAML reader (YAML 1.1) does: plain
// true/false/yes/no/on/off/y/n in any of their spellings are booleans, quoted strings are not.
func YAML11Bool(n *yaml.Node) (value, ok bool) {
	if n == nil || n.Kind != yaml.ScalarNode || n.Style&(yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle|yaml.LiteralStyle|yaml.FoldedStyle) != 0 {
		return false, false
	}
	switch n.Value {
	case "true", "True", "TRUE", "yes", "Yes", "YES", "on", "On", "ON", "y", "Y":
		return true, true
	case "false", "False", "FALSE", "no", "No", "NO", "off", "Off", "OFF", "n", "N":
		return false, true
	}
	return false, false
}

// Gate returns the explicit setting of gate name, if any.
func (in *Instance) Gate(name string) (GateSetting, bool) {
	var last GateSetting
	found := false
	for _, g := range in.FeatureGates() {
		if g.Name == name {
			last, found = g, true
		}
	}
	return last, found
}

// NodePortAddresses returns the effective nodePortAddresses and where they come from; an
// empty Value list with OriginDefault means unset.
func (in *Instance) NodePortAddresses() ([]string, Setting) {
	if in.HasConfigFlag() {
		if in.Config == nil {
			return nil, Setting{Origin: OriginUnknown}
		}
		if _, n := in.Config.Lookup(Path{"nodePortAddresses"}); n != nil && nodeHasPlaceholder(n) {
			// Set by a template placeholder: the value is not known here.
			return nil, Setting{Origin: OriginUnknown, Doc: in.Config, Path: Path{"nodePortAddresses"}}
		}
		if c := in.KPC(); c != nil && len(c.NodePortAddresses) > 0 {
			return c.NodePortAddresses, Setting{Origin: OriginConfig, Doc: in.Config, Path: Path{"nodePortAddresses"}}
		}
		if in.Config.Open {
			return nil, Setting{Origin: OriginUnknown, Doc: in.Config, Path: Path{"nodePortAddresses"}}
		}
		return nil, Setting{Origin: OriginDefault, Doc: in.Config, Path: Path{"nodePortAddresses"}}
	}
	if f := in.Flag("nodeport-addresses"); f != nil && f.Value != "" {
		var out []string
		for _, s := range strings.Split(f.Value, ",") {
			if s = strings.TrimSpace(s); s != "" {
				out = append(out, s)
			}
		}
		return out, Setting{Origin: OriginFlag, Flag: f}
	}
	if in.Installer != nil {
		if v, s, ok := in.installerNodePortAddresses(); ok {
			return v, s
		}
	}
	if in.FlagsUnknown {
		return nil, Setting{Origin: OriginUnknown}
	}
	return nil, Setting{Origin: OriginDefault}
}

// IsWindowsConfig reports whether a KubeProxyConfiguration is evidently for Windows: mode
// kernelspace, or a winkernel section holding a value other than its default. kubeadm writes
// the winkernel defaults (enableDSR: false, networkName: "", ...) into every kube-proxy
// ConfigMap it generates, Linux or not, so a section of defaults is no evidence.
func IsWindowsConfig(d *Document) bool {
	if d == nil {
		return false
	}
	if strings.EqualFold(strings.TrimSpace(d.Str(Path{"mode"})), ModeKernelspace) {
		return true
	}
	_, wk := d.Lookup(Path{"winkernel"})
	return wk != nil && hasNonDefaultScalar(wk)
}

// hasNonDefaultScalar reports whether a value below n is set to something other than an empty,
// false, zero or null value.
func hasNonDefaultScalar(n *yaml.Node) bool {
	switch n.Kind {
	case yaml.ScalarNode:
		switch strings.TrimSpace(n.Value) {
		case "", "false", "False", "FALSE", "0", "null", "~", "{}", "[]":
			return false
		}
		return true
	case yaml.MappingNode:
		for i := 1; i < len(n.Content); i += 2 {
			if hasNonDefaultScalar(n.Content[i]) {
				return true
			}
		}
	case yaml.SequenceNode:
		for _, c := range n.Content {
			if hasNonDefaultScalar(c) {
				return true
			}
		}
	}
	return false
}

// nodeHasPlaceholder reports whether a scalar, or any scalar in a sequence, holds a template
// placeholder.
func nodeHasPlaceholder(n *yaml.Node) bool {
	if n.Kind == yaml.ScalarNode {
		return text.HasPlaceholder(n.Value)
	}
	for _, c := range n.Content {
		if c.Kind == yaml.ScalarNode && text.HasPlaceholder(c.Value) {
			return true
		}
	}
	return false
}
