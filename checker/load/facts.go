package load

import (
	"bytes"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/kube-proxy-lint/kube-proxy-lint/checker"
)

// Metric facts (issue 24, first phase of "facts, not trees"). Prometheus rule groups and
// Grafana dashboards were a third of the node trees a large repository keeps for its rules,
// yet the rules read only their queries: KP501 and KP502 read the expr of each alerting or
// recording rule with its alert name, record key and group name, and the queries of dashboard
// panels and templating variables (checker.FindRuleGroups, checker.DashboardQueries). Once a
// file is decoded, the loader extracts those facts from the whole tree and keeps them on the
// document (Document.Metrics, which those functions return): the query nodes (positions,
// fixes and messages are computed from them as before) with their field paths in the whole
// tree, the alert, record and group names. Of the tree it keeps the top-level fields that do
// not lead to a query; labels, annotations, panel layout and the like are dropped. A
// PrometheusRule, whose other top-level fields are its apiVersion, kind and metadata, keeps
// its header alone beside its facts (Document.Facts).
//
// This is safe for the other rules by the argument of pruning (prune.go): nothing dropped may
// name one of pruneKeep's words, which are what every rule looks for; a document that does
// keeps its tree. The document's top-level keys are all kept (installer, inventory and version
// detection read them), and of its metadata what metadataFacts names. Documents with anchors or aliases keep their
// trees. Before it drops anything the loader reduces the tree to the paths of the facts
// (reducer, which finds the words and anchors), extracts the facts again from that and keeps
// the reduction only when they are the same nodes at the same paths.

// keepMetricFacts reduces the metric documents of f to their facts (see above), keeping of
// dashboards the queries the run's rules read (rf.keepQuery).
func keepMetricFacts(f *checker.File, rf *ruleFacts) {
	for _, d := range f.Docs {
		if !reducible(f, d) || d.Kind != "" && d.Kind != "PrometheusRule" {
			continue
		}
		groups, queries := checker.FindRuleGroups(d), checker.DashboardQueries(d)
		if len(groups) == 0 && len(queries) == 0 {
			continue
		}
		root := &factTrie{}
		root.metadataFacts()
		for _, g := range groups {
			for _, r := range g.Rules {
				p := r.Expr.Path // ...groups.i.rules.j.expr
				rule, group := p[:len(p)-1], p[:len(p)-3]
				root.leaf(p)
				root.leaf(rule.Append("alert"))
				root.leaf(rule.Append("record"))
				root.leaf(group.Append("name"))
			}
		}
		for _, q := range queries {
			p := q.Path
			if n := len(p); n >= 2 && p[n-1] == "query" && p[n-2] == "query" {
				p = p[:n-1] // a templating variable's query object: kept whole
			}
			root.leaf(p)
		}
		r := reducer{}
		skel := r.reduce(d.Node, root, true)
		if r.keep || !sameFacts(d, skel, groups, queries) {
			continue
		}
		d.Metrics = proxyMetricFacts(groups, queries, rf.keepQuery)
		if d.Kind == "PrometheusRule" {
			// Its skeleton would be its header and metadata: no reader needs them (phase 7).
			pruneToHeader(d)
			d.Facts = true
			continue
		}
		d.DropGeneric()
		d.Node = withoutFactPaths(skel, groups, queries)
		d.Reduced = true
	}
}

// ruleFacts is what the loader needs to know of the run's rules (Options.Facts), found once
// per load (Options.ruleFacts): the rules that give facts of the documents whose trees it
// drops (checker.Rule.DocFacts), the workload kinds some rule reads whole (Rule.Reads), and
// which queries of dashboards they read (keepQuery).
type ruleFacts struct {
	facts []*checker.Rule
	reads map[string]bool
	// keepQuery reports whether a rule of the run reads a dashboard query: one that says so
	// (checker.Rule.Queries: KP501 reads those that name a metric that only some modes export,
	// a few of the kube-proxy queries of a monitoring repository: 82,000 of them held 40 MB at
	// 100,000 files, issue 24 phase 8), or, when the rules are not known, every one that names
	// a kube-proxy metric.
	keepQuery func(expr string) bool
}

// newRuleFacts sums up rules, the run's (nil: unknown).
func newRuleFacts(rules []*checker.Rule) *ruleFacts {
	rf := &ruleFacts{reads: map[string]bool{}}
	if rules == nil {
		rf.keepQuery = func(expr string) bool { return strings.Contains(expr, checker.ProxyMetricPrefix) }
		return rf
	}
	var readers []func(string) bool
	for _, r := range rules {
		if r.DocFacts != nil {
			rf.facts = append(rf.facts, r)
		}
		for _, k := range r.Reads {
			rf.reads[k] = true
		}
		if r.Queries != nil {
			readers = append(readers, r.Queries)
		}
	}
	rf.keepQuery = func(expr string) bool {
		for _, reads := range readers {
			if reads(expr) {
				return true
			}
		}
		return false
	}
	return rf
}

// proxyMetricFacts returns the facts the metric rules read of groups and queries: the rules
// of groups that name a kube-proxy metric (checker.ProxyMetricPrefix), with their groups, and
// the dashboard queries keepQuery keeps; the others, most of a monitoring repository's, are
// not kept (nor their offset maps when the text goes: keepQueryOffsets).
func proxyMetricFacts(groups []checker.RuleGroup, queries []checker.PromExpr, keepQuery func(string) bool) *checker.MetricFacts {
	m := &checker.MetricFacts{}
	names := func(e checker.PromExpr) bool { return strings.Contains(e.Node.Value, checker.ProxyMetricPrefix) }
	for _, g := range groups {
		var rules []checker.PromRule
		for _, r := range g.Rules {
			if names(r.Expr) {
				rules = append(rules, r)
			}
		}
		if len(rules) > 0 {
			g.Rules = rules
			m.Groups = append(m.Groups, g)
		}
	}
	for _, q := range queries {
		if keepQuery(q.Node.Value) {
			m.Queries = append(m.Queries, q)
		}
	}
	return m
}

// keepQueryOffsets computes the offset maps of d's queries (File.ScalarMap, kept on the
// file) from the text they are in, before that text goes (releaseMasked, releaseContent):
// the metric rules' positions inside a query come from them.
func keepQueryOffsets(d *checker.Document) {
	if d.Metrics == nil {
		return
	}
	for _, g := range d.Metrics.Groups {
		for _, r := range g.Rules {
			d.File.ScalarMap(r.Expr.Node)
		}
	}
	for _, q := range d.Metrics.Queries {
		d.File.ScalarMap(q.Node)
	}
}

// withoutFactPaths returns the reduced tree skel without the top-level fields that lead to
// the facts (spec of a PrometheusRule, groups of a rule file, panels and templating of a
// dashboard): the facts hold the query nodes and their paths (Document.Metrics), and the
// rest of those fields is the skeleton of paths to them and empty placeholders.
func withoutFactPaths(skel *yaml.Node, groups []checker.RuleGroup, queries []checker.PromExpr) *yaml.Node {
	tops := map[string]bool{}
	for _, g := range groups {
		for _, r := range g.Rules {
			tops[r.Expr.Path[0]] = true
		}
	}
	for _, q := range queries {
		tops[q.Path[0]] = true
	}
	out := *skel
	out.Content = make([]*yaml.Node, 0, len(skel.Content))
	for i := 0; i+1 < len(skel.Content); i += 2 {
		if !tops[skel.Content[i].Value] {
			out.Content = append(out.Content, skel.Content[i], skel.Content[i+1])
		}
	}
	return &out
}

// Workload facts. The application workloads that prune keeps whole because they name a
// loopback address or the host network (a sidecar's 127.0.0.1 upstream, a probe on
// localhost), and the DaemonSets that are not kube-proxy (node agents, log shippers), were
// the largest share of the trees left: among the rules only KP302 (loopback-nodeport) reads
// them, and only the pod's hostNetwork and each container's image, command, args, env,
// probes and lifecycle hooks (the node port range reader and the control-plane image tags,
// the same command, args and image; KP603, off by default, a DaemonSet's metadata and its
// containers' image, command and args). A DaemonSet that runs kube-proxy, or any workload
// that names it or another word of the rules, keeps its tree. When the words of such a workload are only those (loopbackKeep: no
// other of pruneKeep's words, no template placeholder), it keeps of its pod spec only these
// fields, the same nodes (of env and handlers, those that name a loopback address:
// containerLeaves); its top-level keys and metadataFacts stay. Volumes, resources, ports,
// affinity and the like are dropped, and the workload keeps its tree if any of them names
// a word of pruneKeep.
//
// When the loader has the run's rules (Options.Facts), a rule that reads such workloads
// gives what it reads of one as facts (checker.Rule.DocFacts: KP302, its loopback addresses
// with their positions), computed here while the tree is whole; a workload of a kind no rule
// of the run reads whole (checker.Rule.Reads: KP603, off by default, reads DaemonSets) whose
// text names no control-plane image then keeps its header alone (Document.Facts), and its
// file's text goes as a Service's does (releaseContent).

// loopbackKeep are the words of pruneKeep that only KP302 looks for in workloads.
var loopbackKeep = newWords("hostNetwork", "localhost", "127.", v6Loopback, "[0:0:0:0:0:0:0:1]")

// otherKeep are the rest of pruneKeep's words.
var otherKeep = pruneKeep.without(loopbackKeep)

// containerFacts are the fields of a container that every reader may read whole: its name,
// its image (KP302: a loopback registry; a control-plane image's tag is a version source),
// command and args (KP302, KP603). Of the fields only KP302 reads, env entries and handlers
// (probes, lifecycle hooks), a container keeps those that name a loopback address
// (loopbackKeep): KP302 finds nothing in the others.
var (
	containerFacts    = []string{"name", "image", "command", "args"}
	containerHandlers = []string{"livenessProbe", "readinessProbe", "startupProbe", "lifecycle"}
)

// containerLeaves adds the facts of container c at path p to root (see containerFacts).
func containerLeaves(root *factTrie, p checker.Path, c *yaml.Node) {
	for _, field := range containerFacts {
		root.leaf(p.Append(field))
	}
	if !mentionsNode(c, loopbackKeep) {
		return
	}
	for _, field := range containerHandlers {
		if _, h := checker.LookupNode(c, checker.Path{field}); h != nil && mentionsNode(h, loopbackKeep) {
			root.leaf(p.Append(field))
		}
	}
	_, env := checker.LookupNode(c, checker.Path{"env"})
	switch {
	case env == nil:
	case env.Kind != yaml.SequenceNode:
		root.leaf(p.Append("env")) // not a list of variables: kept as it is
	default:
		for j, e := range env.Content {
			if mentionsNode(e, loopbackKeep) {
				root.leaf(p.Append("env", j))
			}
		}
	}
}

// mentionsNode reports whether a scalar of n's subtree (keys included) holds one of words.
// A subtree deeper than the reducer's bound counts as naming them (the reducer keeps such a
// document's tree anyway).
func mentionsNode(n *yaml.Node, ws *words) bool {
	var walk func(n *yaml.Node, depth int) bool
	walk = func(n *yaml.Node, depth int) bool {
		if n == nil {
			return false
		}
		if depth > 10000 || n.Kind == yaml.ScalarNode && mentionsString(n.Value, ws) {
			return true
		}
		for _, c := range n.Content {
			if walk(c, depth+1) {
				return true
			}
		}
		return false
	}
	return walk(n, 0)
}

// keepWorkloadFacts reduces the application workloads of f to the fields KP302 reads (see
// above). When the run's rules give their facts of a document (checker.Rule.DocFacts: KP302's
// loopback addresses), an application workload whose kind no rule of the run reads whole
// (checker.Rule.Reads: KP603, when enabled, reads every DaemonSet) and whose text names no
// control-plane image (its tag is a version source, read once every file is loaded) keeps its
// header only, once the rules' facts of it are computed: nothing else reads it after loading.
func keepWorkloadFacts(f *checker.File, rf *ruleFacts) {
	for i, d := range f.Docs {
		spec := checker.WorkloadPodSpec(d.Kind)
		if !pruneKinds[d.Kind] && d.Kind != "DaemonSet" || spec == nil || !reducible(f, d) {
			continue
		}
		text := docText(f, i)
		if mentions(text, otherKeep) || mentions(text, pruneKeepTemplated) {
			continue
		}
		if len(rf.facts) > 0 && !rf.reads[d.Kind] && !mentions(text, versionKeep) {
			for _, r := range rf.facts {
				r.KeepFacts(d)
			}
			pruneToHeader(d)
			d.Facts = true
			continue
		}
		root := &factTrie{}
		root.metadataFacts()
		root.leaf(spec.Append("hostNetwork"))
		for _, list := range []string{"initContainers", "containers", "ephemeralContainers"} {
			_, cs := d.Lookup(spec.Append(list))
			if cs == nil || cs.Kind != yaml.SequenceNode {
				continue
			}
			for k, c := range cs.Content {
				containerLeaves(root, spec.Append(list, k), c)
			}
		}
		reduceTo(d, root)
	}
}

// Service facts. Services were the largest share of the trees left after that, and the
// rules read only their node ports: checker.Workspace.NodePorts (from the typed object, with
// the nodePort keys' positions) and the Rego data's services (spec.type and each port's
// name, port, nodePort and protocol). A Service that names none of pruneKeep's words and no
// template placeholder and opens a node port keeps those as Go values
// (checker.ServiceFacts, positions resolved) and its header (Document.Facts; until phase 7
// its top-level keys with spec emptied, and metadataFacts, which no reader needed); no typed
// object. A Service that opens no node port (its type is neither NodePort nor LoadBalancer
// and no port sets a nodePort) keeps only its type, which is all the Rego data shows of it,
// as facts beside its header; one of type ClusterIP (written or not: the data shows
// ClusterIP either way) is pruned to its header.

// serviceSpecFacts are the fields a Service that opens no node port keeps.
var serviceSpecFacts = []string{"type", "allocateLoadBalancerNodePorts"}

// keepServiceFacts reduces the Services of f to their node port facts (see above).
func keepServiceFacts(f *checker.File) {
	for i, d := range f.Docs {
		if d.Kind != "Service" || d.APIVersion != "v1" || !reducible(f, d) {
			continue
		}
		text := docText(f, i)
		if mentions(text, pruneKeep) || mentions(text, pruneKeepTemplated) {
			continue
		}
		root := &factTrie{}
		root.metadataFacts()
		for _, field := range serviceSpecFacts {
			root.leaf(checker.P("spec", field))
		}
		opens := bytes.Contains(text, []byte("nodePort"))
		switch d.Str(checker.P("spec", "type")) {
		case "NodePort", "LoadBalancer":
			opens = true
		case "", "ClusterIP":
			if !opens {
				pruneToHeader(d) // all anyone reads of it: a Service, of type ClusterIP
				continue
			}
		}
		if opens {
			// Its facts, from the whole tree and the typed object, positions included; then
			// it keeps its header.
			facts := checker.ServiceFactsOf(d)
			meta := &factTrie{}
			meta.metadataFacts()
			meta.kids["spec"] = &factTrie{}
			if reduceTo(d, meta) { // not a tree that must stay whole (an anchor, an alias)
				serviceHeader(d, facts)
			}
			continue
		}
		typ := d.Str(checker.P("spec", "type"))
		if reduceTo(d, root) {
			// Its type, which is all Document.ServicePorts gives of it; NodePorts reads the
			// typed object, and this one opens none.
			serviceHeader(d, &checker.ServiceFacts{Type: typ})
		}
	}
}

// serviceHeader prunes Service d to its header, with its facts (Document.Facts): what the
// rules read of it (Workspace.NodePorts, Document.ServicePorts), positions resolved.
func serviceHeader(d *checker.Document, facts *checker.ServiceFacts) {
	pruneToHeader(d)
	d.Service, d.Facts, d.Reduced = facts, true, false
}

// reducible reports whether d is a top-level mapping document of f's own stream (of its
// masked copy, for a template) that keeps its tree: what pruning and the fact reductions
// look at. A template's documents keep every line where it was, so their ranges are read in
// the template itself, placeholders included.
func reducible(f *checker.File, d *checker.Document) bool {
	own := d.File == f || d.File.Masked && d.File.Parent == f
	return own && !d.Pruned && d.Parent == nil && len(d.Embedded) == 0 && d.Node != nil && d.Node.Kind == yaml.MappingNode
}

// reduceTo reduces d's tree to the paths of t (top-level keys kept, reducer) unless the
// reducer finds that it must keep it whole; it reports whether it did.
func reduceTo(d *checker.Document, t *factTrie) bool {
	r := reducer{}
	skel := r.reduce(d.Node, t, true)
	if r.keep {
		return false
	}
	d.DropGeneric()
	d.Node = skel
	d.Reduced = true
	return true
}

// metadataFacts adds what is read of a document's metadata once its facts are extracted: its
// name and namespace (also held by the document: Name, Namespace), and the suppression
// annotation. Labels, annotations, owner references and the like are dropped (a fifth of the
// nodes left on the benchmark corpus): the cluster model, scopes and references read the
// document's name and namespace, suppressions the one annotation, and the Node inventory,
// which reads labels, is not reduced.
func (t *factTrie) metadataFacts() {
	t.leaf(checker.P("metadata", "name"))
	t.leaf(checker.P("metadata", "namespace"))
	t.leaf(checker.P("metadata", "annotations", checker.IgnoreAnnotation))
}

// factTrie is the set of field paths to keep: leaf marks a node kept whole.
type factTrie struct {
	kids  map[string]*factTrie
	whole bool
}

// leaf adds path p, kept whole.
func (t *factTrie) leaf(p checker.Path) {
	for _, e := range p {
		if t.whole {
			return
		}
		if t.kids == nil {
			t.kids = map[string]*factTrie{}
		}
		k := t.kids[e]
		if k == nil {
			k = &factTrie{}
			t.kids[e] = k
		}
		t = k
	}
	t.whole, t.kids = true, nil
}

// reducer builds the reduced tree; keep is set when the document must keep its tree.
type reducer struct {
	keep bool
	stub *yaml.Node
}

// reduce returns n reduced to the paths of t. At the top level every key is kept.
func (r *reducer) reduce(n *yaml.Node, t *factTrie, top bool) *yaml.Node {
	if r.keep || n.Anchor != "" || n.Kind == yaml.AliasNode {
		r.keep = true
		return n
	}
	if t.whole {
		r.check(n, true)
		return n
	}
	out := *n
	out.Content = nil
	switch n.Kind {
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			switch kid := t.kids[k.Value]; {
			case kid != nil:
				out.Content = append(out.Content, k, r.reduce(v, kid, false))
			case top:
				r.check(k, true)
				r.check(v, true)
				out.Content = append(out.Content, k, v)
			default:
				r.check(k, false)
				r.check(v, false)
			}
		}
	case yaml.SequenceNode:
		out.Content = make([]*yaml.Node, len(n.Content))
		for i, c := range n.Content {
			if kid := t.kids[strconv.Itoa(i)]; kid != nil {
				out.Content[i] = r.reduce(c, kid, false)
				continue
			}
			r.check(c, false)
			if r.stub == nil {
				r.stub = &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
			}
			out.Content[i] = r.stub
		}
	default:
		r.keep = true // a path through a scalar: not the shape the facts come from
		return n
	}
	return &out
}

// check looks at a subtree that is kept whole (kept) or dropped: any anchor or alias keeps
// the document's tree, and so does a dropped scalar that names one of pruneKeep's words.
func (r *reducer) check(n *yaml.Node, kept bool) {
	var walk func(n *yaml.Node, depth int)
	walk = func(n *yaml.Node, depth int) {
		if r.keep || n == nil {
			return
		}
		if n.Anchor != "" || n.Kind == yaml.AliasNode || depth > 10000 {
			r.keep = true
			return
		}
		if n.Kind == yaml.ScalarNode {
			if !kept && mentionsString(n.Value, pruneKeep) {
				r.keep = true
			}
			return
		}
		for _, c := range n.Content {
			walk(c, depth+1)
		}
	}
	walk(n, 0)
}

// sameFacts reports whether the reduced tree skel of d gives the facts of d's tree.
func sameFacts(d *checker.Document, skel *yaml.Node, groups []checker.RuleGroup, queries []checker.PromExpr) bool {
	sd := &checker.Document{File: d.File, Index: d.Index, Node: skel}
	g2, q2 := checker.FindRuleGroups(sd), checker.DashboardQueries(sd)
	if len(g2) != len(groups) || len(q2) != len(queries) {
		return false
	}
	same := func(a, b checker.PromExpr) bool { return a.Node == b.Node && a.Path.String() == b.Path.String() }
	for i, g := range groups {
		if g2[i].Name != g.Name || len(g2[i].Rules) != len(g.Rules) {
			return false
		}
		for j, r := range g.Rules {
			if g2[i].Rules[j].Alert != r.Alert || !same(g2[i].Rules[j].Expr, r.Expr) {
				return false
			}
		}
	}
	for i, q := range queries {
		if !same(q2[i], q) {
			return false
		}
	}
	return true
}
