package checker

import "strings"

// Facts about kube-proxy shared by the loader and the rules (RULES.md §1).

// DefaultMode returns the mode kube-proxy uses when none is set, at target.
func DefaultMode(target Version, windows bool) string {
	if windows {
		return "kernelspace"
	}
	if target.AtLeast(40) {
		return "nftables"
	}
	return "iptables"
}

// honouredWithConfig are the flags kube-proxy still reads when --config is given.
var honouredWithConfig = map[string]bool{
	"config": true, "write-config-to": true, "cleanup": true, "init-only": true,
	"master": true, "hostname-override": true, "v": true, "vmodule": true,
	"logging-format": true, "log-flush-frequency": true, "version": true, "help": true,
	"h": true, "windows-service": true,
}

// IgnoredWithConfig reports whether kube-proxy silently ignores flag name when --config is
// given (kubernetes#98302).
func IgnoredWithConfig(name string) bool {
	if honouredWithConfig[name] || strings.HasPrefix(name, "log-") || strings.HasPrefix(name, "log_") {
		return false
	}
	return true
}

// Proxy modes.
const (
	ModeIPTables    = "iptables"
	ModeIPVS        = "ipvs"
	ModeNFTables    = "nftables"
	ModeKernelspace = "kernelspace"
)
