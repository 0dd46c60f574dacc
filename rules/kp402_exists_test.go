package rules

import (
	"math/rand"
	"regexp"
	"strings"
	"testing"
)

// kp402ExistsRe is what kp402ChecksExistence finds: the reference it is checked against.
var kp402ExistsRe = regexp.MustCompile(`(command -v|which|type|hash)\s+ipvsadm|-[edf]\s+"?/sys/class/net/kube-ipvs0|ip link show kube-ipvs0`)

// FuzzKP402ChecksExistence checks kp402ChecksExistence against kp402ExistsRe.
func FuzzKP402ChecksExistence(f *testing.F) {
	for _, s := range kp402ExistenceSamples() {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if got, want := kp402ChecksExistence(b), kp402ExistsRe.Match(b); got != want {
			t.Fatalf("%q: %v, want %v", b, got, want)
		}
	})
}

// TestKP402ChecksExistence runs the fuzz samples and generated scripts made of the pieces
// the expression matches on.
func TestKP402ChecksExistence(t *testing.T) {
	samples := kp402ExistenceSamples()
	pieces := []string{"command -v", "command", " -v", "which", "type", "hash", " ", "\t", "\n", "\v", "\f", "\r", "ipvsadm",
		"ipvs", "adm", "-e", "-d", "-f", "-x", "-", "e", `"`, "/sys/class/net/kube-ipvs0", "/sys/class/net/", "kube-ipvs0",
		"ip link show kube-ipvs0", "ip link show ", "x", "subtype"}
	rng := rand.New(rand.NewSource(3))
	for range 20000 {
		var b strings.Builder
		for range 1 + rng.Intn(8) {
			b.WriteString(pieces[rng.Intn(len(pieces))])
		}
		samples = append(samples, b.String())
	}
	hits := 0
	for _, s := range samples {
		got, want := kp402ChecksExistence([]byte(s)), kp402ExistsRe.MatchString(s)
		if got != want {
			t.Fatalf("%q: %v, want %v", s, got, want)
		}
		if want {
			hits++
		}
	}
	if hits < 100 || hits > len(samples)-100 {
		t.Fatalf("%d of %d samples match: the generator does not exercise both answers", hits, len(samples))
	}
}

func kp402ExistenceSamples() []string {
	return []string{
		"if command -v ipvsadm >/dev/null; then ipvsadm -C; fi\n",
		"which  ipvsadm && ipvsadm -Ln\n",
		"subtype\tipvsadm\n",
		"hash\nipvsadm\n",
		"[ -d \"/sys/class/net/kube-ipvs0\" ] && ip link del kube-ipvs0\n",
		"test -e /sys/class/net/kube-ipvs0\n",
		"test -x /sys/class/net/kube-ipvs0\n",
		"-f\"/sys/class/net/kube-ipvs0\n",
		"ip link show kube-ipvs0 && ip link delete kube-ipvs0\n",
		"ipvsadm -C\n",
		"",
	}
}
