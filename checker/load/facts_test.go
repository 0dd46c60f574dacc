package load

import (
	"reflect"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/kube-proxy-lint/kube-proxy-lint/checker"
)

// TestKeepMetricFacts: a PrometheusRule and a Grafana dashboard keep their queries (the same
// nodes at the same paths, with alert names, record keys and group names), their metadata and
// top-level keys, and lose the rest; one whose dropped part names a word a rule looks for, or
// that has an anchor, keeps its whole tree.
func TestKeepMetricFacts(t *testing.T) {
	const rule = `apiVersion: monitoring.coreos.com/v1
kind: PrometheusRule
metadata:
  name: rules
  labels: {team: web}
spec:
  groups:
  - name: web
    rules:
    - alert: Down
      expr: up == 0
      for: 5m
      annotations:
        summary: "{{ $labels.instance }} is down"
  - name: proxy
    rules:
    - record: sync:rate
      expr: rate(kubeproxy_sync_proxy_rules_duration_seconds_count[5m])
      labels: {severity: info}
`
	const dashboard = `{
  "title": "web",
  "uid": "abc",
  "panels": [
    {"id": 1, "type": "text", "gridPos": {"h": 1}},
    {"id": 2, "title": "sync", "targets": [{"expr": "kubeproxy_sync_proxy_rules_last_timestamp_seconds", "legendFormat": "{{instance}}", "refId": "A"}]}
  ],
  "templating": {"list": [{"name": "node", "query": {"query": "label_values(up, node)", "refId": "B"}, "hide": 0}]}
}
`
	tests := []struct {
		name, file, src string
		reduced         bool
		gone, kept      []checker.Path
		gone2           []checker.Path // fields that lead to the facts: gone when reduced
		masked          bool           // decoded from a masked copy (a template)
		header          bool           // a header beside its facts (a PrometheusRule)
	}{
		{name: "rule", file: "rule.yaml", src: rule, reduced: true, header: true, gone2: []checker.Path{checker.P("spec"), checker.P("metadata")},
			gone: []checker.Path{checker.P("spec", "groups", 0, "rules", 0, "for"), checker.P("spec", "groups", 0, "rules", 0, "annotations"),
				checker.P("spec", "groups", 1, "rules", 0, "labels"), checker.P("metadata", "labels", "team")}},
		{name: "dashboard", file: "dash.json", src: dashboard, reduced: true, masked: true,
			gone:  []checker.Path{checker.P("panels", 0, "id"), checker.P("panels", 1, "targets", 0, "legendFormat"), checker.P("templating", "list", 0, "name")},
			gone2: []checker.Path{checker.P("panels"), checker.P("templating")},
			kept:  []checker.Path{checker.P("title"), checker.P("uid")}},
		{name: "a dropped word", file: "rule.yaml", src: rule + "      annotations: {runbook: check iptables}\n"},
		{name: "an anchor", file: "rule.yaml", src: rule + "      annotations: &a {x: y}\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			whole := Bytes(tt.file, []byte(tt.src), nil).Docs[0]
			f, probs := readAndParse(t.Context(), input{name: tt.file, content: []byte(tt.src), explicit: true}, DefaultMaxFileSize)
			if len(probs) > 0 || f == nil {
				t.Fatalf("load: %v", probs)
			}
			prune(f)
			releaseMasked(f) // as releaseContent does
			d := f.Docs[0]
			if got := d.Node != whole.Node && countNodes(d.Node) < countNodes(whole.Node); got != tt.reduced {
				t.Fatalf("reduced = %v, want %v", got, tt.reduced)
			}
			for _, p := range tt.gone {
				if !d.Has(p) == !tt.reduced || !whole.Has(p) {
					t.Errorf("%s: present %v in the reduced tree, %v in the whole tree", p, d.Has(p), whole.Has(p))
				}
			}
			for _, p := range tt.kept {
				if !d.Has(p) {
					t.Errorf("%s: dropped", p)
				}
			}
			for _, p := range tt.gone2 {
				if d.Has(p) == tt.reduced {
					t.Errorf("%s: present %v, want %v", p, d.Has(p), !tt.reduced)
				}
			}
			if got := d.Pruned && d.Facts && d.Node.Line == whole.Node.Line && d.Node.Column == whole.Node.Column; got != tt.header {
				t.Errorf("a header with facts where it was = %v, want %v", got, tt.header)
			}
			if (d.Metrics != nil) != tt.reduced {
				t.Errorf("metric facts kept = %v, want %v", d.Metrics != nil, tt.reduced)
			}
			if d.File.Masked && (d.File.Content == nil) != tt.reduced {
				t.Errorf("masked text released = %v, want %v", d.File.Content == nil, tt.reduced)
			}
			if tt.masked && !d.File.Masked {
				t.Error("not read from a masked copy: the case tests nothing")
			}
			// The facts are those of the whole tree that name a kube-proxy metric (the others,
			// "up == 0" and "label_values(up, node)", are not kept when reduced): same
			// queries, positions and paths.
			wg, wq := checker.FindRuleGroups(whole), checker.DashboardQueries(whole)
			if tt.reduced {
				m := proxyMetricFacts(wg, wq, newRuleFacts(nil).keepQuery)
				if len(m.Groups)+len(m.Queries) >= len(wg)+len(wq) {
					t.Error("the facts are not limited to the queries naming kube-proxy metrics: the case tests nothing")
				}
				wg, wq = m.Groups, m.Queries
			}
			sameQueries(t, checker.FindRuleGroups(d), wg, checker.DashboardQueries(d), wq)
		})
	}
}

func sameQueries(t *testing.T, g1, g2 []checker.RuleGroup, q1, q2 []checker.PromExpr) {
	t.Helper()
	var a, b []checker.PromExpr
	var names1, names2 []string
	for _, g := range g1 {
		for _, r := range g.Rules {
			a, names1 = append(a, r.Expr), append(names1, g.Name+"/"+r.Alert)
		}
	}
	for _, g := range g2 {
		for _, r := range g.Rules {
			b, names2 = append(b, r.Expr), append(names2, g.Name+"/"+r.Alert)
		}
	}
	a, b = append(a, q1...), append(b, q2...)
	if len(a) == 0 || len(a) != len(b) {
		t.Fatalf("%d queries, want %d (and some)", len(a), len(b))
	}
	for i := range a {
		if a[i].Path.String() != b[i].Path.String() || a[i].Node.Value != b[i].Node.Value || a[i].Node.Line != b[i].Node.Line || a[i].Node.Column != b[i].Node.Column {
			t.Errorf("query %d: %s %q at %d:%d, want %s %q at %d:%d", i, a[i].Path, a[i].Node.Value, a[i].Node.Line, a[i].Node.Column,
				b[i].Path, b[i].Node.Value, b[i].Node.Line, b[i].Node.Column)
		}
		// Positions inside the query, as the rules compute them (also when the masked copy
		// of a templated file let its text go: releaseMasked).
		n := len(a[i].Node.Value)
		p1, e1 := a[i].Doc.SubPos(a[i].Node, 1, n-1)
		p2, e2 := b[i].Doc.SubPos(b[i].Node, 1, n-1)
		if p1 != p2 || e1 != e2 {
			t.Errorf("query %d: inner range at %v-%v, want %v-%v", i, p1, e1, p2, e2)
		}
	}
	if len(names1) != len(names2) {
		t.Fatalf("groups %q, want %q", names1, names2)
	}
	for i := range names1 {
		if names1[i] != names2[i] {
			t.Errorf("group/alert %q, want %q", names1[i], names2[i])
		}
	}
}

func countNodes(n *yaml.Node) int {
	if n == nil {
		return 0
	}
	c := 1
	for _, k := range n.Content {
		c += countNodes(k)
	}
	return c
}

// TestKeepWorkloadFacts: an application Deployment whose only words of pruneKeep are
// loopback addresses keeps of its pod spec what KP302 reads (hostNetwork, each container's
// image, command, args, env, probes and hooks), the same nodes, and its metadata; one that
// names another word, a template placeholder, or a loopback address in a dropped field keeps
// its whole tree.
func TestKeepWorkloadFacts(t *testing.T) {
	const deploy = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  annotations: {owner: web}
spec:
  replicas: 2
  template:
    metadata:
      labels: {app: web}
    spec:
      hostNetwork: true
      volumes:
      - name: data
        emptyDir: {}
      initContainers:
      - name: init
        image: busybox
        args: [--wait]
        env:
        - {name: MODE, value: quiet}
        livenessProbe:
          httpGet: {port: 8080}
      containers:
      - name: web
        image: nginx
        args: [--upstream=127.0.0.1:8080]
        env:
        - {name: UP, value: "http://localhost:3000"}
        - {name: MODE, value: fast}
        readinessProbe:
          httpGet: {host: 127.0.0.1, port: 8080}
        livenessProbe:
          httpGet: {path: /healthz, port: 8080}
        resources: {limits: {cpu: 1}}
        volumeMounts:
        - {name: data, mountPath: /data}
`
	tests := []struct {
		name, src string
		reduced   bool
	}{
		{"loopback only", deploy, true},
		{"another word", deploy + "        - {name: rules, mountPath: /etc/iptables}\n", false},
		{"a placeholder", deploy + "        - {name: x, mountPath: \"{{ .Values.path }}\"}\n", false},
		{"a dropped loopback", deploy + "        - {name: x, mountPath: /run/127.0.0.1}\n", false},
	}
	spec := checker.P("spec", "template", "spec")
	c := spec.Append("containers", 0)
	kept := []checker.Path{checker.P("metadata", "name"), spec.Append("hostNetwork"), c.Append("image"), c.Append("args", 0),
		c.Append("env", 0, "value"), c.Append("readinessProbe", "httpGet", "port")}
	// The init container names no loopback address: KP302 finds nothing in it, so it keeps
	// only its name, image, command and args.
	ic := spec.Append("initContainers", 0)
	kept = append(kept, ic.Append("image"), ic.Append("args", 0))
	// Of the others, env entries and handlers that name no loopback address go.
	gone := []checker.Path{ic.Append("env"), ic.Append("livenessProbe"), c.Append("env", 1, "value"), c.Append("livenessProbe"),
		checker.P("metadata", "annotations", "owner"), checker.P("spec", "replicas"), spec.Append("volumes"), c.Append("resources"), c.Append("volumeMounts")}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			whole := Bytes("d.yaml", []byte(tt.src), nil).Docs[0]
			f, probs := readAndParse(t.Context(), input{name: "d.yaml", content: []byte(tt.src), explicit: true}, DefaultMaxFileSize)
			if len(probs) > 0 || f == nil {
				t.Fatalf("load: %v", probs)
			}
			prune(f)
			d := f.Docs[0]
			if d.Pruned {
				t.Fatal("pruned")
			}
			for _, p := range kept {
				_, a := d.Lookup(p)
				_, b := whole.Lookup(p)
				if a == nil || b == nil || a.Value != b.Value || a.Line != b.Line || a.Column != b.Column {
					t.Errorf("%s: not kept as it was", p)
				}
			}
			for _, p := range gone {
				if d.Has(p) == tt.reduced {
					t.Errorf("%s: present %v, want %v", p, d.Has(p), !tt.reduced)
				}
			}
		})
	}
}

// TestKeepServiceFacts: a Service that opens a node port keeps its facts as Go values (what
// NodePorts and the Rego data read of it, the same values and positions as its whole tree
// and typed object give) and its header (Document.Facts); one that names a word of
// pruneKeep keeps its whole tree and typed object.
func TestKeepServiceFacts(t *testing.T) {
	const svc = `apiVersion: v1
kind: Service
metadata:
  name: web
spec:
  type: NodePort
  selector: {app: web}
  ports:
  - name: http
    port: 80
    targetPort: 8080
    nodePort: 30080
  - name: https
    port: 443
    protocol: TCP
`
	for _, tt := range []struct {
		name, src string
		reduced   bool
	}{
		{"plain", svc, true},
		{"a word", svc + "  externalIPs: [127.0.0.2]\n", false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			whole, wprobs := readAndParse(t.Context(), input{name: "s.yaml", content: []byte(tt.src), explicit: true}, DefaultMaxFileSize)
			f, probs := readAndParse(t.Context(), input{name: "s.yaml", content: []byte(tt.src), explicit: true}, DefaultMaxFileSize)
			if len(probs)+len(wprobs) > 0 || f == nil || whole == nil {
				t.Fatalf("load: %v %v", probs, wprobs)
			}
			prune(f)
			d, w := f.Docs[0], whole.Docs[0]
			if got := (d.Service != nil && d.Object == nil); got != tt.reduced {
				t.Fatalf("facts kept = %v (typed object %v), want %v", d.Service != nil, d.Object != nil, tt.reduced)
			}
			nodePorts := func(d *checker.Document) []checker.NodePort {
				nps := (&checker.Workspace{Docs: []*checker.Document{d}}).NodePorts()
				for i := range nps {
					if nps[i].Service != d {
						t.Errorf("node port %d: Service %p, want %p", i, nps[i].Service, d)
					}
					nps[i].Service = nil
				}
				return nps
			}
			if got, want := nodePorts(d), nodePorts(w); len(want) != 2 || !reflect.DeepEqual(got, want) {
				t.Errorf("NodePorts:\n got %+v\nwant %+v", got, want)
			}
			gt, gp := d.ServicePorts()
			wt, wp := w.ServicePorts()
			if gt != wt || len(wp) != 2 || !reflect.DeepEqual(gp, wp) {
				t.Errorf("ServicePorts:\n got %q %+v\nwant %q %+v", gt, gp, wt, wp)
			}
			if wp[0].Pos.Line != 12 || wp[1].Pos.Line != 13 {
				t.Errorf("ports located at lines %d and %d, want 12 and 13", wp[0].Pos.Line, wp[1].Pos.Line)
			}
			if tt.reduced && (!d.Pruned || !d.Facts || d.Name != "web" || d.Node.Line != w.Node.Line || d.Node.Column != w.Node.Column) {
				t.Errorf("not a header with facts where it was: pruned %v, facts %v, name %q", d.Pruned, d.Facts, d.Name)
			}
			if _, a := d.Lookup(checker.P("metadata", "name")); !tt.reduced && a == nil {
				t.Error("metadata.name: not kept")
			}
			for _, p := range []checker.Path{checker.P("spec", "type"), checker.P("spec", "selector"), checker.P("spec", "ports")} {
				if d.Has(p) == tt.reduced {
					t.Errorf("%s: present %v, want %v", p, d.Has(p), !tt.reduced)
				}
			}
		})
	}
	// A Service that opens no node port keeps its type as facts beside its header and no typed
	// object, and one of type ClusterIP only its header; one that sets a nodePort on a
	// ClusterIP port keeps its facts (the Rego data shows them).
	const cluster = "apiVersion: v1\nkind: Service\nmetadata:\n  name: api\nspec:\n  selector: {app: api}\n  ports:\n  - {name: http, port: 80}\n"
	for _, tt := range []struct {
		name, src    string
		opens, facts bool
		typ          string
	}{
		{"ClusterIP", cluster, false, false, ""},
		{"typed ClusterIP", cluster + "  type: ClusterIP\n", false, false, ""},
		{"ExternalName", cluster + "  type: ExternalName\n", false, true, "ExternalName"},
		{"a nodePort", cluster + "  - {name: x, port: 81, nodePort: 30081}\n", true, true, ""},
		{"LoadBalancer", cluster + "  type: LoadBalancer\n", true, true, "LoadBalancer"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f, probs := readAndParse(t.Context(), input{name: "s.yaml", content: []byte(tt.src), explicit: true}, DefaultMaxFileSize)
			if len(probs) > 0 || f == nil {
				t.Fatalf("load: %v", probs)
			}
			prune(f)
			d := f.Docs[0]
			if typ, ports := d.ServicePorts(); (len(ports) > 0) != tt.opens || typ != tt.typ {
				t.Errorf("type %q, ports %v, want %q and ports: %v", typ, ports, tt.typ, tt.opens)
			}
			if d.Object != nil || d.Has(checker.P("spec", "ports")) || d.Has(checker.P("spec", "selector")) {
				t.Error("the typed object or the spec's nodes are kept")
			}
			if !d.Pruned || d.Facts != tt.facts || (d.Service != nil) != tt.facts {
				t.Errorf("pruned %v, facts %v (Service facts %v), want a header, facts %v", d.Pruned, d.Facts, d.Service != nil, tt.facts)
			}
		})
	}
}
