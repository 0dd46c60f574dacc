package load

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
	kjson "sigs.k8s.io/json"

	"github.com/kube-proxy-lint/kube-proxy-lint/checker"
)

var decodeSeeds = []string{
	`apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  labels: {app: web, tier: "1"}
  annotations: {a: "b"}
spec:
  replicas: 3
  revisionHistoryLimit: 0
  strategy: {type: RollingUpdate, rollingUpdate: {maxSurge: 25%, maxUnavailable: 1}}
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      terminationGracePeriodSeconds: 30
      containers:
      - name: web
        image: nginx:1.27
        args: ["--port", "8080"]
        ports: [{containerPort: 8080, protocol: TCP}]
        env: [{name: A, value: "1"}, {name: B, valueFrom: {fieldRef: {fieldPath: status.podIP}}}]
        resources: {requests: {cpu: 100m, memory: 128Mi}, limits: {cpu: 1, memory: 1.5Gi}}
        readinessProbe: {httpGet: {path: /healthz, port: 8080}, periodSeconds: 5}
        livenessProbe: {tcpSocket: {port: http}}
        securityContext: {runAsNonRoot: yes, runAsUser: 1000}
      x-unknown: {deep: [1, 2.5, true, null]}
`,
	"apiVersion: apps/v1\nkind: Deployment\nspec:\n  replicas: two\n",
	"apiVersion: apps/v1\nkind: Deployment\nspec:\n  replicas: 3000000000\n",
	"apiVersion: apps/v1\nkind: Deployment\nspec:\n  template: {spec: {containers: {name: x}}}\n",
	"apiVersion: apps/v1\nkind: Deployment\nspec:\n  template: {spec: {containers: [{name: x, resources: {limits: {cpu: abc}}}]}}\n",
	"apiVersion: apps/v1\nkind: Deployment\nspec:\n  template: {spec: {containers: [{name: x, ports: [{containerPort: 1.5}]}]}}\n",
	"apiVersion: apps/v1\nkind: Deployment\nspec:\n  strategy: {rollingUpdate: {maxSurge: 1.5}}\n",
	"apiVersion: apps/v1\nkind: Deployment\nmetadata: {creationTimestamp: null, labels: {a: 1}}\n",
	"apiVersion: apps/v1\nkind: Deployment\nmetadata: {creationTimestamp: 2024-01-01T00:00:00Z}\n",
	"a: &x {b: 1}\nc: *x\nmetadata: {<<: *x}\n",
	"apiVersion: v1\nkind: ConfigMap\ndata: {a: b, c: 1, d: true}\nbinaryData: {x: aGVsbG8=}\n",
	"apiVersion: v1\nkind: Pod\nspec: {hostNetwork: on, containers: [{name: p, resources: {limits: {cpu: \" 2 \"}}}]}\n",
	"apiVersion: batch/v1\nkind: CronJob\nspec: {schedule: '* * * * *', jobTemplate: {spec: {backoffLimit: -1}}}\n",
	"apiVersion: apps/v1\nkind: DaemonSet\nspec: {template: {spec: {containers: [{name: k, command: [kube-proxy, 1, true]}]}}}\n",
	"spec: {template: {spec: {containers: [{name: k, resources: {limits: {cpu: \"1\\t\"}}}]}}}\n",
	"spec: {template: {spec: {containers: [{name: k, resources: {limits: {memory: 99999999999999999999}}}]}}}\n",
	"kind: Job\nspec: {parallelism: 0x10, completions: 0o17, activeDeadlineSeconds: 1e3}\n",
	// A template's document: the values holding placeholders are left out of its decoding.
	"apiVersion: apps/v1\nkind: Deployment\nspec:\n  replicas: '{{ .Values.replicas }}'\n  template: {spec: {containers: [{name: x, ports: [{containerPort: '{{ .Values.port }}'}], args: ['{{ .Values.a }}', b]}]}}\n",
	"apiVersion: apps/v1\nkind: Deployment\nspec:\n  replicas: '{{ .Values.replicas }}'\n  replicas: two\n",
	"apiVersion: apps/v1\nkind: Deployment\nspec:\n  replicas: two\n  replicas: '{{ .Values.replicas }}'\n",
	"kind: Pod\nspec: {containers: ['{{ .Values.c }}', {name: c, resources: {limits: {cpu: '${CPU}'}}}], nodeSelector: {a: '$(B)', b: '2'}}\n",
}

// FuzzDecodesCleanly: decodesCleanly answers true only for trees that nodeJSON writes and
// sigs.k8s.io/json decodes into the type without an error, for every typed kind.
func FuzzDecodesCleanly(f *testing.F) {
	for _, s := range decodeSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		var doc yaml.Node
		if err := yaml.Unmarshal([]byte(src), &doc); err != nil || len(doc.Content) == 0 {
			return
		}
		n := doc.Content[0]
		var templated []byte // what decodeTyped decodes of the tree in a template
		if g, err := (&checker.Document{Node: n, File: &checker.File{}}).GenericUncached(); err == nil {
			templated, _ = json.Marshal(withoutPlaceholders(g))
		}
		for _, mk := range knownTypes {
			typ := reflect.TypeOf(mk()).Elem()
			if decodesCleanly(n, typ, false) {
				raw, ok := nodeJSON(n)
				if !ok {
					t.Fatalf("%s: decodesCleanly, but nodeJSON leaves the tree to the generic path:\n%s", typ, src)
				}
				if err := kjson.UnmarshalCaseSensitivePreserveInts(raw, reflect.New(typ).Interface()); err != nil {
					t.Fatalf("%s: decodesCleanly, but decoding fails: %v\n%s", typ, err, src)
				}
			}
			if decodesCleanly(n, typ, true) {
				if templated == nil {
					t.Fatalf("%s: decodesCleanly in a template, but the generic form cannot be written:\n%s", typ, src)
				}
				if err := kjson.UnmarshalCaseSensitivePreserveInts(templated, reflect.New(typ).Interface()); err != nil {
					t.Fatalf("%s: decodesCleanly in a template, but decoding fails: %v\n%s", typ, err, src)
				}
			}
		}
	})
}

// TestDecodesCleanly: the usual manifest is recognised as decoding (so the fast path is
// taken), and each kind of problem is left to the decoder.
func TestDecodesCleanly(t *testing.T) {
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(decodeSeeds[0]), &doc); err != nil {
		t.Fatal(err)
	}
	dep := reflect.TypeOf(knownTypes[typeKey{"apps", "Deployment"}]()).Elem()
	if !decodesCleanly(doc.Content[0], dep, false) || !decodesCleanly(doc.Content[0], dep, true) {
		t.Error("a usual Deployment is not recognised as decoding")
	}
	for _, src := range decodeSeeds[1:7] {
		var d yaml.Node
		if err := yaml.Unmarshal([]byte(src), &d); err != nil {
			t.Fatal(err)
		}
		if decodesCleanly(d.Content[0], dep, false) || decodesCleanly(d.Content[0], dep, true) {
			t.Errorf("a Deployment that does not decode passes:\n%s", strings.TrimSpace(src))
		}
	}
	// In a template, the values that hold placeholders are not decoded (withoutPlaceholders);
	// outside one they are, and a placeholder is no number.
	for i, src := range decodeSeeds[len(decodeSeeds)-4:] {
		var d yaml.Node
		if err := yaml.Unmarshal([]byte(src), &d); err != nil {
			t.Fatal(err)
		}
		typ := reflect.TypeOf(knownTypes[typeKey{"apps", "Deployment"}]()).Elem()
		if i == 3 {
			typ = reflect.TypeOf(knownTypes[typeKey{"", "Pod"}]()).Elem()
		}
		want := i == 0 || i == 3 // the last value of a repeated key is the one decoded
		if got := decodesCleanly(d.Content[0], typ, true); got != want {
			t.Errorf("in a template: decodesCleanly = %v, want %v:\n%s", got, want, strings.TrimSpace(src))
		}
		if decodesCleanly(d.Content[0], typ, false) {
			t.Errorf("outside a template, a placeholder passes as a number:\n%s", strings.TrimSpace(src))
		}
	}
}
