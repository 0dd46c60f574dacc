package checker

import (
	"fmt"
	"regexp"
	"strconv"
)

// Version is a Kubernetes minor version such as 1.40. Patch levels do not change kube-proxy
// behaviour that the rules check, so they are dropped.
type Version struct {
	Major, Minor int
}

// DefaultTarget is the target when neither a flag nor the repository says otherwise: the release
// in which ipvs stops starting by default and nftables becomes the default mode.
var DefaultTarget = Version{1, 40}

var versionRe = regexp.MustCompile(`^v?(\d+)\.(\d+)(?:\.\d+)?(?:[-+].*)?$`)

// ParseVersion accepts "1.40", "v1.37.2", "1.38.0-beta.0".
func ParseVersion(s string) (Version, error) {
	m := versionRe.FindStringSubmatch(s)
	if m == nil {
		return Version{}, fmt.Errorf("invalid Kubernetes version %q (want e.g. 1.40 or v1.37.2)", s)
	}
	maj, err1 := strconv.Atoi(m[1])
	minor, err2 := strconv.Atoi(m[2])
	if err1 != nil || err2 != nil || maj != 1 {
		return Version{}, fmt.Errorf("invalid Kubernetes version %q (want e.g. 1.40 or v1.37.2)", s)
	}
	return Version{maj, minor}, nil
}

// String formats the version as "1.40".
func (v Version) String() string { return fmt.Sprintf("%d.%d", v.Major, v.Minor) }

// AtLeast reports whether v >= 1.minor.
func (v Version) AtLeast(minor int) bool { return v.Major > 1 || (v.Major == 1 && v.Minor >= minor) }

// Less reports whether v < o.
func (v Version) Less(o Version) bool {
	if v.Major != o.Major {
		return v.Major < o.Major
	}
	return v.Minor < o.Minor
}

// Target is the version the rules evaluate against and where it came from.
type Target struct {
	Version Version
	// Source says where the version came from: "flag", "default", or a file position
	// description such as "kube-proxy image tag in deploy/kube-proxy.yaml:12".
	Source string
	// Pos is the position of the evidence when Source is a file.
	Pos *Position `json:",omitempty"`
	// Scope is the scope directory the target is for ("" for the repository root), set by
	// Workspace.TargetOf and ScopeTargets.
	Scope string `json:",omitempty"`
}
