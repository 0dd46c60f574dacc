package rules

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/kube-proxy-lint/kube-proxy-lint/checker"
)

// KP201 flags command-line flags that kube-proxy ignores because it runs with --config.
var KP201 = &checker.Rule{
	ID:       "KP201",
	Name:     "flag-ignored-by-config",
	Severity: checker.SeverityWarning,
	Kinds:    []string{"DaemonSet", "Pod", "Deployment", "KubeProxyConfiguration", "ConfigMap"},
	Doc: withProse("kp201_flag_ignored_by_config.md", checker.Doc{
		Title: "flag that kube-proxy ignores because --config is set",
		Before: `# config.conf in the kube-proxy ConfigMap sets mode: iptables
containers:
- name: kube-proxy
  command:
  - /usr/local/bin/kube-proxy
  - --config=/var/lib/kube-proxy/config.conf
  - --proxy-mode=iptables
`,
		After: `# config.conf in the kube-proxy ConfigMap sets mode: iptables
containers:
- name: kube-proxy
  command:
  - /usr/local/bin/kube-proxy
  - --config=/var/lib/kube-proxy/config.conf
`,
		Since: "0.1.0",
		Fixes: []checker.FixDoc{
			{Text: `Remove the ignored flag (the ` + "`args`" + ` item, or the words in a script): kube-proxy ignores it whatever its value.`, Safety: checker.Safe, Preferred: true},
			{Text: `Write the flag's value into the configuration file kube-proxy reads and remove the flag, when the file lacks the value or has another one. The value then applies.`, Safety: checker.Unsafe},
		},
	}),
	Run: runKP201,
}

func runKP201(p *checker.Pass) error {
	for _, in := range p.Workspace.Instances {
		if (in.Workload == nil && in.Kind != checker.InstanceCommand) || in.Flag("config") == nil {
			continue
		}
		p := p.ForInstance(in)
		mode := in.Mode(p.Target())
		// Asked once per kube-proxy, not once per flag.
		_, conflict := proxyModeConflict(in, p.Target())
		cleanup := in.Flag("cleanup") != nil
		for i := range in.Flags {
			fl := &in.Flags[i]
			if !checker.IgnoredWithConfig(fl.Name) {
				continue
			}
			if conflict && fl.Name == "proxy-mode" {
				// KP106 reports this flag as a mode conflict, with the same evidence: one
				// finding for one problem.
				continue
			}
			msg, rel, same := kp201Explain(p.Target(), in, fl, mode)
			f := checker.Finding{Message: msg, Pos: fl.Pos, End: fl.End, Object: fl.Doc.Ref(), Path: fl.NodePath,
				Related: append(append(rel, fl.Via...), instanceRelated(in)...)}
			if cleanup {
				// A --cleanup run removes the rules of every mode and exits: the ignored
				// flag changes nothing, but it is not a setting to move into the file either.
				f.Severity = checker.SeverityInfo
				f.Message = fmt.Sprintf("kube-proxy ignores --%s because --config is set (kubernetes#98302); this --cleanup run removes the rules of every mode whatever the flag says, so the flag can go", fl.Name)
			}
			f.Fixes = ignoredFlagFixes(in, fl, mode, !same && !cleanup)
			p.Report(f)
		}
	}
	return nil
}

// ignoredFlagFixes are the fixes of a flag kube-proxy ignores because --config is set: remove
// it (safe and preferred: kube-proxy ignores the flag whatever its value), and, when move is
// set (the file has another value or none), move its value into the file instead. KP106 offers
// them too on the --proxy-mode it reports.
func ignoredFlagFixes(in *checker.Instance, fl *checker.Flag, mode checker.Setting, move bool) []checker.Fix {
	if len(fl.Remove) == 0 {
		return nil
	}
	fx := checker.Fix{Message: "Remove the ignored flag --" + fl.Name, Edits: fl.Remove, Safety: checker.Safe, Preferred: true}
	fixes := []checker.Fix{fx}
	if move {
		if mv, ok := kp201MoveFix(in, fl, mode, fx); ok {
			fixes = append(fixes, mv)
		}
	}
	return fixes
}

// kp201Kind is how a flag's value compares with its configuration field.
type kp201Kind int

const (
	kp201String kp201Kind = iota
	kp201Duration
	kp201Bool
	kp201Int
	kp201List
	kp201Gates
)

// kp201Fields maps kube-proxy flags to their KubeProxyConfiguration fields. The sync-period and
// masquerade-all flags depend on the mode and are handled in kp201Field.
var kp201Fields = map[string]struct {
	path string
	kind kp201Kind
}{
	"proxy-mode":                        {"mode", kp201String},
	"feature-gates":                     {"featureGates", kp201Gates},
	"kubeconfig":                        {"clientConnection.kubeconfig", kp201String},
	"kube-api-qps":                      {"clientConnection.qps", kp201Int},
	"kube-api-burst":                    {"clientConnection.burst", kp201Int},
	"kube-api-content-type":             {"clientConnection.contentType", kp201String},
	"nodeport-addresses":                {"nodePortAddresses", kp201List},
	"cluster-cidr":                      {"clusterCIDR", kp201String},
	"bind-address":                      {"bindAddress", kp201String},
	"bind-address-hard-fail":            {"bindAddressHardFail", kp201Bool},
	"healthz-bind-address":              {"healthzBindAddress", kp201String},
	"metrics-bind-address":              {"metricsBindAddress", kp201String},
	"profiling":                         {"enableProfiling", kp201Bool},
	"show-hidden-metrics-for-version":   {"showHiddenMetricsForVersion", kp201String},
	"oom-score-adj":                     {"oomScoreAdj", kp201Int},
	"config-sync-period":                {"configSyncPeriod", kp201Duration},
	"detect-local-mode":                 {"detectLocalMode", kp201String},
	"pod-bridge-interface":              {"detectLocal.bridgeInterface", kp201String},
	"pod-interface-name-prefix":         {"detectLocal.interfaceNamePrefix", kp201String},
	"iptables-masquerade-bit":           {"iptables.masqueradeBit", kp201Int},
	"iptables-localhost-nodeports":      {"iptables.localhostNodePorts", kp201Bool},
	"ipvs-scheduler":                    {"ipvs.scheduler", kp201String},
	"ipvs-sync-period":                  {"ipvs.syncPeriod", kp201Duration},
	"ipvs-min-sync-period":              {"ipvs.minSyncPeriod", kp201Duration},
	"ipvs-strict-arp":                   {"ipvs.strictARP", kp201Bool},
	"ipvs-exclude-cidrs":                {"ipvs.excludeCIDRs", kp201List},
	"ipvs-tcp-timeout":                  {"ipvs.tcpTimeout", kp201Duration},
	"ipvs-tcpfin-timeout":               {"ipvs.tcpFinTimeout", kp201Duration},
	"ipvs-udp-timeout":                  {"ipvs.udpTimeout", kp201Duration},
	"conntrack-max-per-core":            {"conntrack.maxPerCore", kp201Int},
	"conntrack-min":                     {"conntrack.min", kp201Int},
	"conntrack-tcp-timeout-established": {"conntrack.tcpEstablishedTimeout", kp201Duration},
	"conntrack-tcp-timeout-close-wait":  {"conntrack.tcpCloseWaitTimeout", kp201Duration},
	"conntrack-tcp-be-liberal":          {"conntrack.tcpBeLiberal", kp201Bool},
	"conntrack-udp-timeout":             {"conntrack.udpTimeout", kp201Duration},
	"conntrack-udp-timeout-stream":      {"conntrack.udpStreamTimeout", kp201Duration},
	"proxy-port-range":                  {"portRange", kp201String},
	"network-name":                      {"winkernel.networkName", kp201String},
	"source-vip":                        {"winkernel.sourceVip", kp201String},
	"enable-dsr":                        {"winkernel.enableDSR", kp201Bool},
	"root-hns-endpoint-name":            {"winkernel.rootHnsEndpointName", kp201String},
	"forward-healthcheck-vip":           {"winkernel.forwardHealthCheckVip", kp201Bool},
}

// kp201Field returns the configuration field that flag name sets, for the given mode.
func kp201Field(name, mode string) (checker.Path, kp201Kind, bool) {
	section := "iptables"
	if mode == checker.ModeNFTables {
		section = "nftables"
	}
	switch name {
	case "masquerade-all":
		return checker.Path{section, "masqueradeAll"}, kp201Bool, true
	case "iptables-sync-period":
		return checker.Path{section, "syncPeriod"}, kp201Duration, true
	case "iptables-min-sync-period":
		return checker.Path{section, "minSyncPeriod"}, kp201Duration, true
	}
	f, ok := kp201Fields[name]
	if !ok {
		return nil, 0, false
	}
	return checker.Path(strings.Split(f.path, ".")), f.kind, true
}

// kp201Explain returns the message for ignored flag fl, related locations in the configuration
// file, and whether the file already says what the flag says (the same value, or the flag has
// no effect anyway), so that nothing is left to move into the file.
func kp201Explain(t checker.Version, in *checker.Instance, fl *checker.Flag, mode checker.Setting) (string, []checker.Related, bool) {
	msg := fmt.Sprintf("kube-proxy ignores %s because --config is set (kubernetes#98302)", flagText(fl))
	if fl.Name == "proxy-port-range" || (fl.HasValue && strings.TrimSpace(fl.Value) == "") {
		return msg + ": the flag has no effect, remove it", nil, true
	}
	doc := in.Config
	if doc == nil {
		if in.ConfigUnresolved != "" {
			return msg + "; set the value in the config file instead (" + in.ConfigUnresolved + ")", nil, false
		}
		return msg + "; set the value in the config file instead", nil, false
	}
	path, kind, ok := kp201Field(fl.Name, mode.Value)
	if !ok {
		return msg, nil, false
	}
	field := path.String()
	k, v := doc.Lookup(path)
	if v == nil || (v.Kind == yaml.ScalarNode && (v.ShortTag() == "!!null" || (v.Value == "" && kind == kp201String))) {
		pos, end := doc.AbsentPos(path)
		rel := []checker.Related{{Pos: pos, End: end, Message: "the config file in use does not set " + field}}
		if fl.Name == "proxy-mode" {
			return fmt.Sprintf("%s: the config file does not set mode, so kube-proxy runs in the default mode %s at target %s; move the value into the config file", msg, mode.Value, t), rel, false
		}
		return fmt.Sprintf("%s: the config file does not set %s, so its default applies; move the value into the config file", msg, field), rel, false
	}
	cfg := kp201Display(v)
	var rel []checker.Related
	if k != nil {
		// The evidence is the value for a scalar (as for every note about a value), the key
		// for a mapping or list.
		at := k
		if v.Kind == yaml.ScalarNode {
			at = v
		}
		rel = append(rel, checker.Related{Pos: doc.NodePos(at), End: doc.NodeEnd(at), Message: "the config file sets " + field + " " + cfg})
	}
	if kind == kp201Gates {
		return kp201CompareGates(msg, fl, v, rel)
	}
	if kp201Same(kind, fl, v) {
		return fmt.Sprintf("%s: the flag is redundant, the config file already sets %s %s", msg, field, cfg), rel, true
	}
	return fmt.Sprintf("%s: %s %s from the config file applies", msg, field, cfg), rel, false
}

// kp201CompareGates compares a --feature-gates flag with the configuration's featureGates map.
func kp201CompareGates(msg string, fl *checker.Flag, v *yaml.Node, rel []checker.Related) (string, []checker.Related, bool) {
	if v.Kind != yaml.MappingNode {
		return msg + ": the config file's featureGates apply", rel, false
	}
	cfg := map[string]*yaml.Node{}
	for i := 0; i+1 < len(v.Content); i += 2 {
		cfg[v.Content[i].Value] = v.Content[i+1]
	}
	var missing, differ []string
	for _, kv := range strings.Split(fl.Value, ",") {
		name, raw, _ := strings.Cut(kv, "=")
		name = strings.TrimSpace(name)
		if name == "" {
			continue
		}
		want, err := strconv.ParseBool(strings.TrimSpace(raw))
		n, ok := cfg[name]
		switch {
		case !ok:
			missing = append(missing, name)
		default:
			if got, ok := yaml11Bool(n); err != nil || !ok || got != want {
				differ = append(differ, name+"="+n.Value)
			}
		}
	}
	switch {
	case len(missing) == 0 && len(differ) == 0:
		return msg + ": the flag is redundant, the config file's featureGates already set the same gates", rel, true
	case len(differ) > 0:
		return msg + ": the config file's featureGates apply (" + strings.Join(differ, ", ") + ")", rel, false
	}
	return msg + ": the config file's featureGates do not set " + strings.Join(missing, ", ") + "; move the gates into the config file", rel, false
}

// kp201Same reports whether the flag's value equals configuration value v.
func kp201Same(kind kp201Kind, fl *checker.Flag, v *yaml.Node) bool {
	fv := strings.TrimSpace(fl.Value)
	switch kind {
	case kp201Bool:
		want := true
		if fl.HasValue {
			var err error
			if want, err = strconv.ParseBool(fv); err != nil {
				return false
			}
		}
		got, ok := yaml11Bool(v)
		return ok && got == want
	case kp201Duration:
		a, err1 := time.ParseDuration(fv)
		b, err2 := time.ParseDuration(v.Value)
		return err1 == nil && err2 == nil && v.Kind == yaml.ScalarNode && a == b
	case kp201Int:
		a, err1 := strconv.ParseInt(fv, 10, 64)
		b, err2 := strconv.ParseInt(v.Value, 10, 64)
		return err1 == nil && err2 == nil && v.Kind == yaml.ScalarNode && a == b
	case kp201List:
		if v.Kind != yaml.SequenceNode {
			return false
		}
		var a, b []string
		for _, s := range strings.Split(fv, ",") {
			if s = strings.TrimSpace(s); s != "" {
				a = append(a, s)
			}
		}
		for _, n := range v.Content {
			b = append(b, n.Value)
		}
		sort.Strings(a)
		sort.Strings(b)
		return strings.Join(a, ",") == strings.Join(b, ",")
	}
	return v.Kind == yaml.ScalarNode && v.Value == fv
}

// kp201Display renders a configuration value for messages.
func kp201Display(v *yaml.Node) string {
	switch v.Kind {
	case yaml.SequenceNode:
		var s []string
		for _, n := range v.Content {
			s = append(s, n.Value)
		}
		return "[" + strings.Join(s, ", ") + "]"
	case yaml.MappingNode:
		var s []string
		for i := 0; i+1 < len(v.Content); i += 2 {
			s = append(s, v.Content[i].Value+": "+v.Content[i+1].Value)
		}
		return "{" + strings.Join(s, ", ") + "}"
	}
	return v.Value
}
