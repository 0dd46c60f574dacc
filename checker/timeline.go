package checker

// The timeline of a kube-proxy: its effective mode at each minor version from the cluster's
// own up to Horizon, and what happens to it there (RULES.md §1, the version table). The
// migration report shows it; KP602 uses it to tell a cluster that is moving to nftables.

// State is what happens to a kube-proxy at one version.
type State string

// States, from harmless to fatal.
const (
	// StateRuns: kube-proxy starts in its mode.
	StateRuns State = "runs"
	// StateSwitches: kube-proxy starts, but its mode comes from a default that differs from
	// the version before (iptables to nftables in 1.40): the data plane changes on upgrade.
	StateSwitches State = "switches"
	// StateDeprecated: kube-proxy starts in a deprecated mode (ipvs from 1.35), or only
	// because a gate keeps it alive (KubeProxyIPVS=true in 1.40-1.42).
	StateDeprecated State = "deprecated"
	// StateExits: kube-proxy exits at startup (ipvs without the gate from 1.40, a mode the
	// version does not accept, a kernel too old for nftables).
	StateExits State = "exits"
	// StateRemoved: the mode's code is gone (ipvs from 1.43; userspace from 1.26).
	StateRemoved State = "removed"
	// StateUnknown: the mode comes from a file or template that is not in the repository.
	StateUnknown State = "unknown"
	// StateOff: the installer does not run kube-proxy.
	StateOff State = "off"
	// StateReplaced: something else (Cilium, Calico eBPF) serves Services in the scope.
	StateReplaced State = "replaced"
)

// Rank orders states by how bad they are, for the worst state of a scope.
func (s State) Rank() int {
	switch s {
	case StateRemoved:
		return 7
	case StateExits:
		return 6
	case StateSwitches:
		return 5
	case StateDeprecated:
		return 4
	case StateUnknown:
		return 3
	case StateRuns:
		return 2
	case StateReplaced:
		return 1
	}
	return 0
}

// Step is one version of a timeline.
type Step struct {
	Version Version
	// Mode is the effective mode there ("" when unknown or off), Origin where it comes from.
	Mode   string
	Origin Origin
	State  State
	// Why explains the state for people: "the KubeProxyIPVS gate is off by default from 1.40".
	Why string
}

// Milestones are the releases at which the behaviour the rules know changes: the version table
// of RULES.md §1 (1.26, 1.29, 1.31, 1.33, 1.35, 1.37, 1.38, 1.40, 1.43, 1.46) and the releases
// of the feature gate table (gates added, locked or removed up to 1.38). Between two
// milestones every rule reports the same, so checking at each milestone is checking at every
// minor version (a test keeps the list true to the rules' version checks).
var Milestones = []Version{{1, 26}, {1, 29}, {1, 31}, {1, 33}, {1, 35}, {1, 36}, {1, 37}, {1, 38}, {1, 40}, {1, 43}, {1, 46}}

// TimelineVersions returns the minor versions from `from` to Horizon; only `from` when it is
// already past the horizon.
func TimelineVersions(from Version) []Version {
	out := []Version{from}
	for v := (Version{from.Major, from.Minor + 1}); !Horizon.Less(v); v.Minor++ {
		out = append(out, v)
	}
	return out
}

// Timeline returns the instance's steps from version `from` to Horizon.
func (in *Instance) Timeline(from Version) []Step {
	var out []Step
	prev := ""
	for i, v := range TimelineVersions(from) {
		s := in.StepAt(v)
		if i > 0 && s.State == StateRuns && (s.Origin == OriginDefault || s.Origin == OriginInstallerDefault) && prev != "" && s.Mode != prev {
			s.State = StateSwitches
			s.Why = "the default mode changes from " + prev + " to " + s.Mode + " in " + v.String()
		}
		prev = s.Mode
		out = append(out, s)
	}
	return out
}

// StepAt returns the instance's mode and state at version v.
func (in *Instance) StepAt(v Version) Step {
	if in.IsDisabled() {
		return Step{Version: v, State: StateOff, Why: "the installer does not run kube-proxy"}
	}
	m := in.Mode(v)
	s := Step{Version: v, Mode: m.Value, Origin: m.Origin, State: StateRuns}
	if m.Origin == OriginUnknown {
		s.State, s.Why = StateUnknown, "the mode is set outside the repository or by a template"
		return s
	}
	if in.Windows {
		if m.Value != ModeKernelspace && m.Value != "" {
			s.State, s.Why = StateExits, "Windows kube-proxy accepts only kernelspace"
		}
		return s
	}
	switch m.Value {
	case ModeIPTables:
	case ModeIPVS:
		g, set := in.Gate("KubeProxyIPVS")
		gateOn := set && g.Value && !g.Invalid
		switch {
		case v.AtLeast(43):
			s.State, s.Why = StateRemoved, "the ipvs code is deleted in 1.43"
		case set && !g.Invalid && !g.Value && v.AtLeast(37):
			s.State, s.Why = StateExits, "KubeProxyIPVS is set to false"
		case v.AtLeast(40) && gateOn:
			s.State, s.Why = StateDeprecated, "starts only because KubeProxyIPVS is true, until 1.43"
		case v.AtLeast(40):
			s.State, s.Why = StateExits, "the KubeProxyIPVS gate is off by default from 1.40"
		case v.AtLeast(35):
			s.State, s.Why = StateDeprecated, "ipvs mode is deprecated from 1.35"
		}
	case ModeNFTables:
		g, set := in.Gate("NFTablesProxyMode")
		switch {
		case !v.AtLeast(29):
			s.State, s.Why = StateExits, "nftables mode exists from 1.29"
		case !v.AtLeast(31) && (!set || !g.Value):
			s.State, s.Why = StateExits, "nftables mode is alpha before 1.31 and needs the NFTablesProxyMode gate"
		}
	case "userspace":
		if v.AtLeast(26) {
			s.State, s.Why = StateRemoved, "userspace mode was removed in 1.26"
		}
	default:
		s.State, s.Why = StateExits, "kube-proxy does not accept mode "+quoteMode(m.Value)
	}
	return s
}

func quoteMode(m string) string {
	if m == "" {
		return `""`
	}
	return m
}

// MovesToNFTables reports whether the instance runs nftables at some version from `from` to
// the horizon while it runs something else at `from`: a cluster whose mode is unset and gets
// the new default in 1.40.
func (in *Instance) MovesToNFTables(from Version) (Version, bool) {
	for _, s := range in.Timeline(from) {
		if s.Mode == ModeNFTables && s.State != StateOff {
			return s.Version, true
		}
	}
	return Version{}, false
}
