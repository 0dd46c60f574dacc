package load

import (
	"bytes"
	"strings"
	"testing"
)

// naiveMentions is what words replaced: a search per word, and "::1" only as an address of
// its own.
func naiveMentions(b string, w *words) bool {
	for _, s := range w.list {
		if s != v6Loopback {
			if strings.Contains(b, s) {
				return true
			}
			continue
		}
		for i := 0; i+len(s) <= len(b); i++ {
			if b[i:i+len(s)] == s && v6LoopbackAt(b, i) {
				return true
			}
		}
	}
	return false
}

var wordSets = map[string]*words{
	"pruneKeep": pruneKeep, "pruneKeepTemplated": pruneKeepTemplated, "holderKeep": holderKeep,
	"versionKeep": versionKeep, "loopbackKeep": loopbackKeep, "otherKeep": otherKeep,
}

var wordSeeds = []string{
	"", "k", "kube-prox", "kube-proxy", "xkube-proxyx", "image: registry.k8s.io/kube-proxy:v1.33.1",
	"::1", "[::1]:80", "iam::123456789012", "a::::1", "::1::1", "x ::1", "::1a ::1", "fe80::1",
	"127.0.0.1", "127", "{{ .Values }}", "${X}", "{%", "#!/bin/sh", "#", "proxy:", "Proxy",
	"kube-apiserver", "kube-controller-manager", "hyperkube", "KUBE-SERVICES", "KUBE", "nf", "nft",
	"replicas: 3\nimage: nginx\n", "[0:0:0:0:0:0:0:1]", "[0:0:0:0:0:0:0:2]", "é::1é", "\xff::1",
}

// TestWords: each set finds what a search per word finds, on words alone, inside text, at
// the ends and across every prefix and suffix of the seeds.
func TestWords(t *testing.T) {
	for name, w := range wordSets {
		if len(w.list) == 0 {
			t.Fatalf("%s is empty", name)
		}
		cases := append([]string(nil), wordSeeds...)
		for _, s := range w.list {
			cases = append(cases, s, "a"+s+"b", s[:len(s)-1], s[1:], ":"+s+":", strings.Repeat(s[:1], 5)+s)
		}
		for _, c := range cases {
			for i := 0; i <= len(c); i++ {
				for _, x := range []string{c[i:], c[:i]} {
					if got, want := mentionsString(x, w), naiveMentions(x, w); got != want {
						t.Errorf("%s: mentionsString(%q) = %v, want %v", name, x, got, want)
					}
					if got, want := mentions([]byte(x), w), naiveMentions(x, w); got != want {
						t.Errorf("%s: mentions(%q) = %v, want %v", name, x, got, want)
					}
				}
			}
		}
	}
	if !mentionsString("kube-proxy", otherKeep) || mentionsString("localhost", otherKeep) {
		t.Error("otherKeep is not pruneKeep without the loopback words")
	}
}

func FuzzWords(f *testing.F) {
	for _, s := range wordSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for name, w := range wordSets {
			if got, want := mentionsString(s, w), naiveMentions(s, w); got != want {
				t.Errorf("%s: mentionsString(%q) = %v, want %v", name, s, got, want)
			}
			if got, want := mentions([]byte(s), w), naiveMentions(s, w); got != want {
				t.Errorf("%s: mentions(%q) = %v, want %v", name, s, got, want)
			}
		}
	})
}

// benchDoc is an application Deployment that names none of pruneKeep's words: pruning reads
// all of it.
var benchDoc = []byte(strings.Repeat(`apiVersion: apps/v1
kind: Deployment
metadata:
  name: checkout-service
  namespace: shop
  labels:
    app.kubernetes.io/name: checkout
    app.kubernetes.io/component: api
spec:
  replicas: 3
  selector:
    matchLabels:
      app: checkout
  template:
    metadata:
      annotations:
        prometheus.io/scrape: "true"
    spec:
      serviceAccountName: checkout
      containers:
      - name: checkout
        image: ghcr.io/example/checkout:2.14.0
        ports:
        - containerPort: 8080
        env:
        - name: DATABASE_URL
          valueFrom:
            secretKeyRef: {name: checkout-db, key: url}
        resources:
          requests: {cpu: 100m, memory: 128Mi}
        readinessProbe:
          httpGet: {path: /healthz, port: 8080}
`, 4))

func BenchmarkMentions(b *testing.B) {
	b.SetBytes(int64(len(benchDoc)))
	b.Run("words", func(b *testing.B) {
		for b.Loop() {
			if mentions(benchDoc, pruneKeep) || mentions(benchDoc, pruneKeepTemplated) {
				b.Fatal("found")
			}
		}
	})
	b.Run("per-word", func(b *testing.B) {
		for b.Loop() {
			for _, w := range [][]string{pruneKeep.list, pruneKeepTemplated.list} {
				for _, s := range w {
					if s != v6Loopback && bytes.Contains(benchDoc, []byte(s)) {
						b.Fatal("found")
					}
				}
			}
		}
	})
}

// FuzzDeclaresManifest: the search for the key words first changes no answer of manifestRe.
func FuzzDeclaresManifest(f *testing.F) {
	for _, s := range []string{"", "apiVersion: v1", "  - kind: X", "'kind' : y", "x: 1\nkind:", "kinds: 2", "KIND: 3",
		"{\"kind\": \"x\"}", "a\n\t-\"apiVersion\"\t:", "server.port=8080\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want := manifestRe.MatchString(s)
		if got := declaresManifest(s); got != want {
			t.Errorf("declaresManifest(%q) = %v, want %v", s, got, want)
		}
		if got := looksLikeManifest([]byte(s)); got != want {
			t.Errorf("looksLikeManifest(%q) = %v, want %v", s, got, want)
		}
	})
}
