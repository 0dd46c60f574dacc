package rules

import (
	"strings"
	"testing"
)

// TestWhenModes checks which proxy modes an Ansible when: condition restricts a task to.
func TestWhenModes(t *testing.T) {
	for cond, want := range map[string]string{
		"kube_proxy_mode == 'ipvs'":                          "ipvs",
		`kube_proxy_mode == "iptables"`:                      "iptables",
		"'ipvs' == kube_proxy_mode":                          "ipvs",
		"kube_proxy_mode in ['ipvs', 'iptables']":            "ipvs iptables",
		"kube_proxy_mode is not 'nftables'":                  "ipvs iptables",
		"kube_proxy_mode != 'nftables'":                      "ipvs iptables",
		"kube_proxy_mode != 'ipvs'":                          "",
		"kube_proxy_mode not in ['ipvs']":                    "",
		"kube_proxy_mode == 'ipvs' or force_cleanup":         "",
		"kube_proxy_ipvs_enabled":                            "ipvs",
		"use_ipvs | bool":                                    "ipvs",
		"not use_ipvs":                                       "",
		"inventory_hostname in groups['kube_control_plane']": "",
		"{{ proxy_check }}":                                  "",
	} {
		if got := strings.Join(kp4WhenModes(cond), " "); got != want {
			t.Errorf("kp4WhenModes(%q) = %q, want %q", cond, got, want)
		}
	}
}
