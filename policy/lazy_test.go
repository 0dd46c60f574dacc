package policy

import (
	"reflect"
	"strings"
	"testing"

	"github.com/kube-proxy-lint/kube-proxy-lint/checker"
	"github.com/kube-proxy-lint/kube-proxy-lint/checker/load"
)

// TestBuiltinHeaderMetadata: the metadata Builtin reads from each embedded rule's header is
// what the whole module says, and each module compiles alone to the same rule as all of them
// compiled together.
func TestBuiltinHeaderMetadata(t *testing.T) {
	srcs, err := builtinSources(false)
	if err != nil {
		t.Fatal(err)
	}
	eager, err := Compile(srcs, true)
	if err != nil {
		t.Fatal(err)
	}
	lazy := Builtin()
	if len(lazy) != len(eager) || len(lazy) == 0 {
		t.Fatalf("%d lazy rules, %d compiled", len(lazy), len(eager))
	}
	for i, want := range eager {
		got := lazy[i]
		wr, _ := regoRules.Load(want)
		gr, _ := regoRules.Load(got)
		w, g := wr.(*regoRule), gr.(*regoRule)
		if err := g.prepare(); err != nil {
			t.Errorf("%s: %v", got.ID, err)
			continue
		}
		type view struct {
			ID, Name, DocURL            string
			Severity                    checker.Severity
			Disabled, External          bool
			Kinds                       []string
			Doc                         checker.Doc
			File, Pkg                   string
			Line                        int
			RuleKinds, Modes            map[string]bool
			KubeProxyWorkloads, Command bool
			NeedsReplacements           bool
		}
		of := func(r *checker.Rule, rr *regoRule) view {
			return view{r.ID, r.Name, r.DocURL, r.Severity, r.Disabled, r.External, r.Kinds, r.Doc,
				rr.file, rr.pkg, rr.findingsLine, rr.kinds, rr.modes, rr.kubeProxyWorkloads, rr.commandLines, rr.needsReplacements}
		}
		if gv, wv := of(got, g), of(want, w); !reflect.DeepEqual(gv, wv) {
			t.Errorf("%s: lazy rule\n%+v\nwant\n%+v", want.ID, gv, wv)
		}
	}
}

// TestBuiltinCompiledOnUse: an embedded rule is compiled when a document it applies to
// exists, not before, and not on a workspace without one.
func TestBuiltinCompiledOnUse(t *testing.T) {
	srcs, err := builtinSources(false)
	if err != nil {
		t.Fatal(err)
	}
	var kp604 Source
	for _, s := range srcs {
		if strings.Contains(s.Name, "kp604") {
			kp604 = s
		}
	}
	r, err := lazyBuiltin(kp604)
	if err != nil {
		t.Fatal(err)
	}
	v, _ := regoRules.Load(r)
	rr := v.(*regoRule)
	compiled := func() bool { return rr.findingsLine != 0 }
	run := func(files map[string][]byte) int {
		t.Helper()
		ws := load.Files(files, &checker.Version{Major: 1, Minor: 33})
		n := 0
		if err := r.Run(checker.NewPass(r, ws, func(checker.Finding) { n++ })); err != nil {
			t.Fatal(err)
		}
		return n
	}
	if compiled() {
		t.Fatal("compiled before any run")
	}
	if n := run(map[string][]byte{"svc.yaml": []byte("apiVersion: v1\nkind: Service\nmetadata:\n  name: a\nspec:\n  ports:\n  - port: 80\n")}); n != 0 || compiled() {
		t.Fatalf("a workspace with only a Service: %d findings, compiled %v", n, compiled())
	}
	// KP604 is about nftables mode (custom.modes): an iptables kube-proxy is not its input.
	kpc := "apiVersion: kubeproxy.config.k8s.io/v1alpha1\nkind: KubeProxyConfiguration\nmode: iptables\n"
	if n := run(map[string][]byte{"kpc.yaml": []byte(kpc)}); n != 0 || compiled() {
		t.Fatalf("an iptables KubeProxyConfiguration: %d findings, compiled %v", n, compiled())
	}
	kpc = strings.Replace(kpc, "iptables", "nftables", 1)
	if n := run(map[string][]byte{"kpc.yaml": []byte(kpc)}); n != 1 || !compiled() {
		t.Fatalf("a KubeProxyConfiguration: %d findings (want 1), compiled %v", n, compiled())
	}
}

// TestBuiltinBrokenModule: an embedded rule whose body does not compile loads (its header
// is fine) and fails when it runs, naming file:line.
func TestBuiltinBrokenModule(t *testing.T) {
	src := Source{Name: "policy/kp999_broken.rego", Text: `# METADATA
# title: broken
# description: a rule that does not compile
# custom:
#   id: KP999
#   name: broken
#   severity: info
#   since: 0.1.0
#   remediation: none
package kube_proxy_lint.rules.kp999

findings contains {"msg": "x", "path": []} if {
	upper(1) == "X"
}
`}
	r, err := lazyBuiltin(src)
	if err != nil {
		t.Fatal(err)
	}
	ws := load.Files(map[string][]byte{"a.yaml": []byte("kind: ConfigMap\napiVersion: v1\nmetadata:\n  name: a\n")}, nil)
	err = r.Run(checker.NewPass(r, ws, func(checker.Finding) {}))
	if err == nil || !strings.Contains(err.Error(), "policy/kp999_broken.rego:13: ") {
		t.Fatalf("run: %v", err)
	}
	if _, err := lazyBuiltin(Source{Name: "x.rego", Text: "# METADATA\n# title: x\n"}); err == nil || !strings.Contains(err.Error(), "no package line") {
		t.Errorf("no package: %v", err)
	}
}
