package checker

import (
	"bytes"
	"regexp"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
	corev1 "k8s.io/api/core/v1"
)

// Workspace views of the Services and the NodePort range, for the rules about NodePorts
// (KP301, KP302). They are computed from Docs and Files on each call: rules run in parallel
// and the workspace is read-only while they do.

// NodePort is one Service port that allocates a node port.
type NodePort struct {
	// Service is the Service document; Path is the field path of the nodePort value, or of
	// the port when the nodePort is allocated by the API server (not written).
	Service *Document
	Path    Path
	// Type is the Service type (NodePort or LoadBalancer).
	Type string
	// Port is the declared nodePort, 0 when the API server allocates it.
	Port     int
	Protocol string
	// Pos and End locate Path's value, or the Service's kind when Path is not written.
	Pos, End Position
}

// ServiceFacts are what the rules and the Rego data read of a Service that opens node ports:
// the loader takes them from its typed object and tree (checker/load/facts.go) and keeps of
// the document its header and metadata only.
type ServiceFacts struct {
	// NodePorts are the Service's entries of Workspace.NodePorts, without Service.
	NodePorts []NodePort
	// Type is spec.type as written ("" when unset); Ports are its ports that open a node
	// port, as Document.ServicePorts gives them.
	Type  string
	Ports []ServicePort
}

// ServicePort is a Service port that opens a node port, as the Rego data shows it.
type ServicePort struct {
	Name     string
	Port     int64
	NodePort int64
	// Protocol is as written, TCP when it is not.
	Protocol string
	// Pos and End locate its nodePort key (its port item when no nodePort is written); zero
	// when unknown.
	Pos, End Position
}

// ServiceFactsOf extracts the facts of Service document d (ServiceFacts) from its typed
// object and tree, positions included.
func ServiceFactsOf(d *Document) *ServiceFacts {
	sf := &ServiceFacts{}
	if svc, ok := d.Object.(*corev1.Service); ok {
		sf.NodePorts = nodePortsOf(d, svc)
		for i := range sf.NodePorts {
			sf.NodePorts[i].Service = nil
		}
	}
	sf.Type, sf.Ports = d.ServicePorts()
	return sf
}

// ServicePorts returns spec.type of Service d as written ("" when unset) and its ports that
// open a node port (all of a NodePort or LoadBalancer Service's, and those that set one),
// from its facts when the loader kept them, else from its tree.
func (d *Document) ServicePorts() (string, []ServicePort) {
	if d.Service != nil {
		return d.Service.Type, d.Service.Ports
	}
	typ := d.Str(P("spec", "type"))
	_, ports := d.Lookup(P("spec", "ports"))
	if ports == nil || ports.Kind != yaml.SequenceNode {
		return typ, nil
	}
	opens := typ == "NodePort" || typ == "LoadBalancer"
	var out []ServicePort
	for i := range ports.Content {
		p := P("spec", "ports", i)
		np, _ := strconv.ParseInt(d.Str(p.Append("nodePort")), 10, 64)
		if !opens && np == 0 {
			continue
		}
		port, _ := strconv.ParseInt(d.Str(p.Append("port")), 10, 64)
		proto := d.Str(p.Append("protocol"))
		if proto == "" {
			proto = "TCP"
		}
		sp := ServicePort{Name: d.Str(p.Append("name")), Port: port, NodePort: np, Protocol: proto}
		at := p.Append("nodePort")
		if !d.Has(at) {
			at = p
		}
		if pos, end, ok := d.KeyPos(at); ok {
			sp.Pos, sp.End = pos, end
		}
		out = append(out, sp)
	}
	return typ, out
}

// Label names the Service for messages: "Service default/web".
func (np NodePort) Label() string {
	d := np.Service
	if d.Namespace != "" {
		return "Service " + d.Namespace + "/" + d.Name
	}
	return "Service " + d.Name
}

// NodePorts returns every Service port that exposes a NodePort (Services of type NodePort,
// and LoadBalancer Services that allocate node ports), in document order.
func (ws *Workspace) NodePorts() []NodePort {
	var out []NodePort
	for _, d := range ws.Docs {
		if d.Service != nil {
			for _, np := range d.Service.NodePorts {
				np.Service = d
				out = append(out, np)
			}
			continue
		}
		if svc, ok := d.Object.(*corev1.Service); ok {
			out = append(out, nodePortsOf(d, svc)...)
		}
	}
	return out
}

// nodePortsOf returns the node ports of Service document d, whose typed object is svc.
func nodePortsOf(d *Document, svc *corev1.Service) []NodePort {
	t := svc.Spec.Type
	switch t {
	case corev1.ServiceTypeNodePort:
	case corev1.ServiceTypeLoadBalancer:
		if a := svc.Spec.AllocateLoadBalancerNodePorts; a != nil && !*a {
			return nil
		}
	default:
		return nil
	}
	var out []NodePort
	for i, p := range svc.Spec.Ports {
		np := NodePort{Service: d, Type: string(t), Port: int(p.NodePort), Protocol: string(p.Protocol)}
		if np.Protocol == "" {
			np.Protocol = "TCP"
		}
		np.Path = P("spec", "ports", i, "nodePort")
		if p.NodePort == 0 {
			np.Path = P("spec", "ports", i)
		}
		var ok bool
		if np.Pos, np.End, ok = d.ValuePos(np.Path); !ok {
			np.Pos, np.End = d.KindPos()
		}
		out = append(out, np)
	}
	return out
}

// PortRange is the NodePort range of a cluster.
type PortRange struct {
	Min, Max int
	// Source describes where a configured range is set; empty for the default range.
	Source string
	// Pos and End locate the configured value.
	Pos, End Position
}

// DefaultNodePortRange is the API server's default --service-node-port-range.
var DefaultNodePortRange = PortRange{Min: 30000, Max: 32767}

// Contains reports whether port is in the range.
func (r PortRange) Contains(port int) bool { return port >= r.Min && port <= r.Max }

// String formats the range as "30000-32767".
func (r PortRange) String() string { return strconv.Itoa(r.Min) + "-" + strconv.Itoa(r.Max) }

// ParsePortRange parses a --service-node-port-range value: "30000-32767", "30000+2768"
// (base and size) or a single port.
func ParsePortRange(s string) (PortRange, bool) {
	s = strings.TrimSpace(s)
	if a, b, ok := strings.Cut(s, "-"); ok {
		lo, err1 := strconv.Atoi(strings.TrimSpace(a))
		hi, err2 := strconv.Atoi(strings.TrimSpace(b))
		if err1 != nil || err2 != nil || lo < 1 || hi > 65535 || lo > hi {
			return PortRange{}, false
		}
		return PortRange{Min: lo, Max: hi}, true
	}
	if a, b, ok := strings.Cut(s, "+"); ok {
		lo, err1 := strconv.Atoi(strings.TrimSpace(a))
		n, err2 := strconv.Atoi(strings.TrimSpace(b))
		if err1 != nil || err2 != nil || lo < 1 || n < 1 || lo+n-1 > 65535 {
			return PortRange{}, false
		}
		return PortRange{Min: lo, Max: lo + n - 1}, true
	}
	p, err := strconv.Atoi(s)
	if err != nil || p < 1 || p > 65535 {
		return PortRange{}, false
	}
	return PortRange{Min: p, Max: p}, true
}

// nodePortRangeTextRe finds the flag in text files (scripts, units, k3s config): the flag
// name must start a word, so a comment's prose does not match by accident; comments are
// excluded by the caller.
var nodePortRangeTextRe = regexp.MustCompile(`(?:^|[\s"'=\[,])-{0,2}service-node-port-range[= ]["']?([0-9]+[-+][0-9]+)`)

// NodePortRange returns the NodePort range that applies to file: the one configured in the
// same scope (kube-apiserver --service-node-port-range in a static Pod or a script or unit,
// kubeadm ClusterConfiguration apiServer.extraArgs, k3s/RKE2 config), else the default.
func (ws *Workspace) NodePortRange(file string) PortRange {
	return ws.NodePortRangeOf(ws.NodePortRanges(), file)
}

// NodePortRangeOf picks the range that applies to file from ranges (as NodePortRanges
// returns them), so that a rule looking up many files scans the workspace once.
func (ws *Workspace) NodePortRangeOf(ranges []PortRange, file string) PortRange {
	for _, r := range ranges {
		if ws.SameCluster(file, r.Pos.Filename) {
			return r
		}
	}
	return DefaultNodePortRange
}

// NodePortRanges returns every configured NodePort range in the workspace, in file order.
func (ws *Workspace) NodePortRanges() []PortRange {
	var out []PortRange
	for _, d := range ws.Docs {
		out = append(out, docNodePortRanges(d)...)
	}
	for _, f := range ws.Files {
		if f.Format != FormatText || !bytes.Contains(f.Content, []byte("service-node-port-range")) {
			continue
		}
		for l := 1; l <= f.Lines.Lines(); l++ {
			text := f.Lines.LineText(l)
			if t := strings.TrimSpace(text); strings.HasPrefix(t, "#") || strings.HasPrefix(t, ";") || strings.HasPrefix(t, "//") {
				continue
			}
			for _, m := range nodePortRangeTextRe.FindAllStringSubmatchIndex(text, -1) {
				r, ok := ParsePortRange(text[m[2]:m[3]])
				if !ok {
					continue
				}
				start := f.Lines.LineStart(l)
				r.Source = "--service-node-port-range in " + f.Path
				r.Pos, r.End = f.PositionAt(start+m[2]), f.PositionAt(start+m[3])
				out = append(out, r)
			}
		}
	}
	return out
}

// docNodePortRanges finds the range in one document.
func docNodePortRanges(d *Document) []PortRange {
	var out []PortRange
	add := func(n *yaml.Node, from, to int, src string) {
		if n == nil || n.Kind != yaml.ScalarNode {
			return
		}
		r, ok := ParsePortRange(n.Value[from:to])
		if !ok {
			return
		}
		r.Source = src
		r.Pos, r.End = d.SubPos(n, from, to)
		out = append(out, r)
	}
	switch {
	case d.Kind == "ClusterConfiguration":
		// kubeadm v1beta3: extraArgs is a map; v1beta4: a list of {name, value}.
		_, ea := d.Lookup(Path{"apiServer", "extraArgs"})
		if ea == nil {
			return nil
		}
		switch ea.Kind {
		case yaml.MappingNode:
			if _, v := LookupNode(ea, Path{"service-node-port-range"}); v != nil {
				add(v, 0, len(v.Value), "kubeadm apiServer.extraArgs")
			}
		case yaml.SequenceNode:
			for _, e := range ea.Content {
				_, n := LookupNode(e, Path{"name"})
				_, v := LookupNode(e, Path{"value"})
				if n != nil && n.Value == "service-node-port-range" && v != nil {
					add(v, 0, len(v.Value), "kubeadm apiServer.extraArgs")
				}
			}
		}
	case d.Kind == "" && d.Parent == nil:
		// k3s / RKE2 config.yaml.
		if _, v := d.Lookup(Path{"service-node-port-range"}); v != nil {
			add(v, 0, len(v.Value), "service-node-port-range in "+d.File.Path)
		}
	default:
		spec := WorkloadPodSpec(d.Kind)
		if spec == nil {
			return nil
		}
		_, cs := d.Lookup(spec.Append("containers"))
		if cs == nil || cs.Kind != yaml.SequenceNode {
			return nil
		}
		for _, c := range cs.Content {
			for _, field := range []string{"command", "args"} {
				_, seq := LookupNode(c, Path{field})
				if seq == nil || seq.Kind != yaml.SequenceNode {
					continue
				}
				for i, n := range seq.Content {
					if n.Kind != yaml.ScalarNode {
						continue
					}
					v := n.Value
					for _, m := range nodePortRangeTextRe.FindAllStringSubmatchIndex(v, -1) {
						add(n, m[2], m[3], "kube-apiserver --service-node-port-range")
					}
					// "--service-node-port-range" "30000-32767" as two argv elements.
					if strings.TrimLeft(v, "-") == "service-node-port-range" && strings.HasPrefix(v, "-") && i+1 < len(seq.Content) {
						nx := seq.Content[i+1]
						add(nx, 0, len(nx.Value), "kube-apiserver --service-node-port-range")
					}
				}
			}
		}
	}
	return out
}

// workloadPodSpecs gives where each workload kind keeps its pod spec.
var workloadPodSpecs = map[string]Path{
	"Pod":         {"spec"},
	"DaemonSet":   {"spec", "template", "spec"},
	"Deployment":  {"spec", "template", "spec"},
	"StatefulSet": {"spec", "template", "spec"},
	"ReplicaSet":  {"spec", "template", "spec"},
	"Job":         {"spec", "template", "spec"},
	"CronJob":     {"spec", "jobTemplate", "spec", "template", "spec"},
}

// WorkloadPodSpec returns the path of the pod spec in a workload document of kind, or nil.
func WorkloadPodSpec(kind string) Path { return workloadPodSpecs[kind] }

// ScopeIndex answers ScopeOf and SameScope for many files at the cost of one cluster lookup
// per distinct file: rules that compare every use with every kube-proxy (KP302) stay linear
// in the number of files. It is not safe for concurrent use; each rule run makes its own.
type ScopeIndex struct {
	ws    *Workspace
	cache map[string]scopeEntry
}

type scopeEntry struct{ scope, key string }

// NewScopeIndex returns an empty index over ws.
func (ws *Workspace) NewScopeIndex() *ScopeIndex {
	return &ScopeIndex{ws: ws, cache: map[string]scopeEntry{}}
}

func (x *ScopeIndex) entry(file string) scopeEntry {
	e, ok := x.cache[file]
	if !ok {
		e = scopeEntry{x.ws.ScopeOf(file), x.ws.ClusterKey(file)}
		x.cache[file] = e
	}
	return e
}

// Of returns ws.ScopeOf(file), computed once per file.
func (x *ScopeIndex) Of(file string) string { return x.entry(file).scope }

// Class returns a key shared by the files that see each other's evidence (Workspace.ClusterKey):
// Same answers alike for all of them, so what is derived from a file's cluster can be cached
// by its class.
func (x *ScopeIndex) Class(file string) string { return x.entry(file).key }

// Same returns ws.SameScope(a, b).
func (x *ScopeIndex) Same(a, b string) bool { return x.entry(a).key == x.entry(b).key }
