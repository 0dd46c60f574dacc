package policy

import (
	"context"
	"fmt"
	"reflect"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"sync"
	"weak"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/rego"
	"github.com/open-policy-agent/opa/v1/resolver"

	"github.com/kube-proxy-lint/kube-proxy-lint/checker"
)

// SchemaVersion is the version of the input and data contract of policies. It changes only
// when a field is removed or changes meaning; new fields keep the version.
const SchemaVersion = 1

// Input is `input` of a policy: one document and where it is.
type Input struct {
	// ID identifies the document; data.kube_proxy_lint refers to documents by it.
	ID   string `json:"id"`
	File string `json:"file"`
	// Document is the 0-based index of the document in File (of the outer document when
	// Embedded is set).
	Document int `json:"document"`
	// Embedded is the field path of the scalar holding this document, e.g.
	// ["data", "config.conf"], when it is embedded in another one.
	Embedded   checker.Path `json:"embedded,omitempty"`
	APIVersion string       `json:"apiVersion"`
	Kind       string       `json:"kind"`
	Namespace  string       `json:"namespace"`
	Name       string       `json:"name"`
	// Scope is the name of the file's cluster ("" for a shared file, which belongs to no
	// cluster and takes no cluster's evidence; see RULES.md "Clusters").
	Scope string `json:"scope"`
	// Unit is the self-contained tree the file belongs to (test data, an example, an Ansible
	// role: checker.UnitOf), "" for none; evidence never crosses units.
	Unit string `json:"unit"`
	// Target is the version this document is checked at: its scope's target.
	Target TargetView `json:"target"`
	// Templated is true when the file holds template placeholders.
	Templated bool `json:"templated"`
	// Instances are the kube-proxies this document runs (as their workload) or configures
	// (as their KubeProxyConfiguration) or whose installer settings it holds: the entries of
	// data.kube_proxy_lint.instances that name this document, joined in advance so that rules need not scan them all.
	Instances []InstanceView `json:"instances"`
	// Object is the document's generic form; finding paths point into it.
	Object any `json:"object"`
}

// View is data.kube_proxy_lint: the workspace as the Go rules see it.
type View struct {
	SchemaVersion int `json:"schemaVersion"`
	// Target is the repository's target; Targets lists the target of each scope (a document's
	// own is input.target, an instance's its target field).
	Target    TargetView     `json:"target"`
	Targets   []TargetView   `json:"targets"`
	Instances []InstanceView `json:"instances"`
	Services  []ServiceView  `json:"services"`
	// Replacements are the signs that something else replaces kube-proxy (Cilium, Calico
	// eBPF, kubeadm proxy.disabled, a kube-proxy pinned to non-Calico nodes).
	Replacements []Replacement `json:"replacements"`
	// Documents lists every document, embedded ones included.
	Documents []DocRef `json:"documents"`
}

// TargetView is the target Kubernetes version and where it comes from.
type TargetView struct {
	Version  string    `json:"version"`
	Minor    int       `json:"minor"`
	Source   string    `json:"source"`
	Location *Location `json:"location"`
	// Scope is the scope directory the target is for (in targets and per document).
	Scope string `json:"scope"`
}

func targetView(t checker.Target) TargetView {
	v := TargetView{Version: t.Version.String(), Minor: t.Version.Minor, Source: t.Source, Scope: t.Scope}
	if t.Pos != nil {
		v.Location = loc(*t.Pos, *t.Pos)
	}
	return v
}

// Location is a span in a real file: 1-based lines, columns in Unicode code points.
type Location struct {
	File      string `json:"file"`
	Line      int    `json:"line"`
	Column    int    `json:"column"`
	EndLine   int    `json:"endLine"`
	EndColumn int    `json:"endColumn"`
}

// DocRef names a document.
type DocRef struct {
	ID         string       `json:"id"`
	File       string       `json:"file"`
	Document   int          `json:"document"`
	Embedded   checker.Path `json:"embedded,omitempty"`
	APIVersion string       `json:"apiVersion"`
	Kind       string       `json:"kind"`
	Namespace  string       `json:"namespace"`
	Name       string       `json:"name"`
	Scope      string       `json:"scope"`
}

// InstanceView is one kube-proxy.
type InstanceView struct {
	Label string `json:"label"`
	// Kind is workload, config, command or installer.
	Kind  string `json:"kind"`
	Scope string `json:"scope"`
	// Unit is the self-contained tree of the instance's file (see Input.unit).
	Unit string `json:"unit"`
	// Target is the version the instance is checked at (its mode is the mode at it).
	Target TargetView `json:"target"`
	// Workload is the document running kube-proxy and Container the path of its container.
	Workload  *DocRef      `json:"workload"`
	Container checker.Path `json:"container"`
	Windows   bool         `json:"windows"`
	// ConfigFlag is true when kube-proxy runs with --config (always for a standalone config).
	ConfigFlag       bool          `json:"configFlag"`
	Config           *DocRef       `json:"config"`
	ConfigVia        []RelatedView `json:"configVia"`
	ConfigUnresolved string        `json:"configUnresolved"`
	Mode             SettingView   `json:"mode"`
	Flags            []FlagView    `json:"flags"`
	FeatureGates     []GateView    `json:"featureGates"`
	// NodePortAddresses is the effective list; empty with origin default means unset.
	NodePortAddresses NodePortView `json:"nodePortAddresses"`
	// Installer describes an installer instance (kind installer), null for other kinds.
	Installer *InstallerView `json:"installer"`
	// Source is the file holding a command line (kind command): a script, a systemd unit,
	// a Dockerfile, a flag file.
	Source string `json:"source,omitempty"`
}

// SettingView is an effective value and its source.
type SettingView struct {
	Value string `json:"value"`
	// Origin is default, flag, config or unknown (--config points outside the repository).
	Origin   string       `json:"origin"`
	Location *Location    `json:"location"`
	Doc      string       `json:"doc,omitempty"`
	Path     checker.Path `json:"path,omitempty"`
}

// FlagView is one command-line flag.
type FlagView struct {
	Name     string `json:"name"`
	Value    string `json:"value"`
	HasValue bool   `json:"hasValue"`
	// Doc and Path locate the scalar holding the flag; Location spans the flag itself.
	Doc      string       `json:"doc,omitempty"`
	Path     checker.Path `json:"path,omitempty"`
	Location *Location    `json:"location"`
	// Ignored is true when kube-proxy ignores the flag because --config is set.
	Ignored bool `json:"ignored"`
}

// GateView is a feature gate set explicitly.
type GateView struct {
	Name     string    `json:"name"`
	Value    bool      `json:"value"`
	Invalid  bool      `json:"invalid"`
	Raw      string    `json:"raw"`
	Origin   string    `json:"origin"`
	Location *Location `json:"location"`
}

// NodePortView is the effective nodePortAddresses.
type NodePortView struct {
	Value    []string  `json:"value"`
	Origin   string    `json:"origin"`
	Location *Location `json:"location"`
}

// RelatedView is a located note.
type RelatedView struct {
	Message  string    `json:"message"`
	Location *Location `json:"location"`
}

// ServiceView is a Service and its node ports.
type ServiceView struct {
	Doc       DocRef         `json:"doc"`
	Type      string         `json:"type"`
	NodePorts []NodePortPort `json:"nodePorts"`
}

// NodePortPort is a Service port that opens a node port.
type NodePortPort struct {
	Name     string `json:"name"`
	Port     int64  `json:"port"`
	NodePort int64  `json:"nodePort"`
	// Protocol defaults to TCP.
	Protocol string    `json:"protocol"`
	Location *Location `json:"location"`
}

// Replacement is a sign that kube-proxy is replaced.
type Replacement struct {
	// By is cilium, calico-ebpf, non-calico-nodeselector or the installer's name (kubeadm,
	// kind, kops, k3s, rke2, talos, gardener, kubespray, aks, eks, rke1, kubekey, k0s, kubeone,
	// aks-engine, sealos, cluster-api).
	By      string `json:"by"`
	Message string `json:"message"`
	// Doc is null for installer settings in text sources (INI inventories, Terraform,
	// install command lines); File and Scope are always set.
	Doc   *DocRef      `json:"doc"`
	File  string       `json:"file"`
	Scope string       `json:"scope"`
	Path  checker.Path `json:"path"`
	// Location spans the setting that says so.
	Location *Location `json:"location"`
	// Workload is set when the signal is on a kube-proxy workload itself (a DaemonSet pinned
	// to non-Calico nodes); that workload is then expected, not a leftover.
	Workload string `json:"workload,omitempty"`
	// Installer is the label of the installer instance that disables kube-proxy, when the
	// sign is an installer setting.
	Installer string `json:"installer,omitempty"`
	// Conflicting is true when kube-proxy still runs or is configured in the scope; when it is
	// false, the kube-proxy rules are quiet in the scope.
	Conflicting bool `json:"conflicting"`
	// Unit is the self-contained tree of File (see Input.unit): the sign speaks only there.
	Unit string `json:"unit"`
	// Managed is true when the replacement manages kube-proxy itself (Calico's operator with
	// kubeProxyManagement: Enabled): a kube-proxy left in its scope is expected.
	Managed bool `json:"managed"`
}

// wsState caches what policies need of one workspace during a run: the view (built once,
// its fields converted to Rego values on first read) and the references and instances of the
// documents. Documents' inputs are not cached: each is built for one evaluation (input). The
// engine drops the state once the rules of the run have returned (releaseAfterRules);
// workspaces are keyed weakly so that the cache never keeps one alive.
type wsState struct {
	once sync.Once
	// viewGo is the view without its Documents (see field).
	viewGo *View
	// docs are the workspace's documents, in order.
	docs []*checker.Document
	// fields are the fields of viewGo as Rego values (the keys of data.kube_proxy_lint), each
	// converted on its first read: a rule that reads only the replacements never pays for the
	// list of every document (issue 24).
	fields []lazyValue
	// resolvers serve each field to the evaluation (evalOptions).
	resolvers []rego.EvalOption
	// refCtx makes the documents' references when they are needed (ref): a policy
	// evaluates the few documents of its kinds, and a reference kept for every document of
	// the workspace was 10 MB through the rules on the benchmark corpus (issue 24).
	refMu  sync.Mutex
	refCtx *viewCtx
	files  map[string]*checker.File
	// byDoc lists the instances naming each document as workload or config.
	byDoc map[string][]InstanceView
	// commandFiles are the text files holding kube-proxy command lines, sorted, and
	// byCommandFile their instances.
	commandFiles  []string
	byCommandFile map[string][]InstanceView
}

var states sync.Map // weak.Pointer[checker.Workspace] -> *wsState

func stateFor(ws *checker.Workspace) *wsState {
	key := weak.Make(ws)
	v, ok := states.Load(key)
	if !ok {
		var loaded bool
		v, loaded = states.LoadOrStore(key, &wsState{})
		if !loaded {
			runtime.AddCleanup(ws, func(k weak.Pointer[checker.Workspace]) { states.Delete(k) }, key)
		}
	}
	st := v.(*wsState)
	// Every caller goes through once, so none sees a half-built state.
	st.once.Do(func() { st.build(ws) })
	return st
}

// releaseAfterRules forgets st, the state of ws, once the rules of the run whose context is
// ctx have returned: the view and its Rego value (tens of megabytes on large repositories)
// are not held while the findings are processed and written. A later run builds them again.
func releaseAfterRules(ctx context.Context, ws *checker.Workspace, st *wsState) {
	key := weak.Make(ws)
	checker.AfterRules(ctx, func() { states.CompareAndDelete(key, st) })
}

// ref returns the reference of document d.
func (st *wsState) ref(d *checker.Document) DocRef {
	st.refMu.Lock()
	defer st.refMu.Unlock()
	return st.refCtx.docRef(d)
}

func (st *wsState) build(ws *checker.Workspace) {
	st.files = map[string]*checker.File{}
	for _, f := range ws.Files {
		if f.Parent == nil {
			st.files[f.Path] = f
		}
	}
	c := newViewCtx(ws)
	st.refCtx = newViewCtx(ws) // not c, which holds what the view was built from
	st.docs = ws.Docs
	c.noDocuments = true
	v := c.view()
	st.viewGo = v
	st.fields = make([]lazyValue, len(viewFields))
	for i, f := range viewFields {
		st.resolvers = append(st.resolvers, rego.EvalResolver(dataRef.Append(f.key), fieldResolver{st, i}))
	}
	st.byDoc = map[string][]InstanceView{}
	st.byCommandFile = map[string][]InstanceView{}
	for _, in := range v.Instances {
		if in.Kind == "command" && in.Source != "" {
			if st.byCommandFile[in.Source] == nil {
				st.commandFiles = append(st.commandFiles, in.Source)
			}
			st.byCommandFile[in.Source] = append(st.byCommandFile[in.Source], in)
		}
		if in.Workload != nil {
			st.byDoc[in.Workload.ID] = append(st.byDoc[in.Workload.ID], in)
		}
		if in.Config != nil && (in.Workload == nil || in.Config.ID != in.Workload.ID) {
			st.byDoc[in.Config.ID] = append(st.byDoc[in.Config.ID], in)
		}
		// An installer's documents (kind Cluster, Talos machine config, every kubespray
		// group_vars file holding one of its settings, ...) name it too.
		for _, id := range installerDocs(in) {
			if (in.Config == nil || in.Config.ID != id) && (in.Workload == nil || in.Workload.ID != id) {
				st.byDoc[id] = append(st.byDoc[id], in)
			}
		}
	}
}

// lazyValue is a Rego value converted on first use.
type lazyValue struct {
	once sync.Once
	v    ast.Value
}

// viewFields are the fields of View, the keys of data.kube_proxy_lint (none is omitempty:
// every key is always present).
var viewFields = structFields(reflect.TypeFor[View]())

// documentsField is the index of View.Documents in viewFields.
var documentsField = slices.IndexFunc(viewFields, func(f fieldInfo) bool { return f.key.Equal(ast.StringTerm("documents")) })

// field returns field i of viewFields as a Rego value, converted on first use: rules that
// evaluate nothing (no document of their kinds, no instance in their modes) or read other
// fields never need it.
func (st *wsState) field(i int) ast.Value {
	f := &st.fields[i]
	f.once.Do(func() {
		if i == documentsField {
			// Listed when read, from the references every input needs anyway: the list of
			// every document is the largest part of the view (issue 24).
			docs := make([]DocRef, len(st.docs))
			for j, d := range st.docs {
				docs[j] = st.ref(d)
			}
			f.v = reflectValue(reflect.ValueOf(docs))
			return
		}
		f.v = reflectValue(reflect.ValueOf(st.viewGo).Elem().Field(viewFields[i].index))
	})
	return f.v
}

// fieldResolver serves one field of data.kube_proxy_lint. Rego asks a resolver only for the
// references an evaluation reads; a read of data.kube_proxy_lint itself (or of data) gets the
// object of every field, as one resolver for the whole view gave it.
type fieldResolver struct {
	st *wsState
	i  int
}

func (r fieldResolver) Eval(context.Context, resolver.Input) (resolver.Result, error) {
	return resolver.Result{Value: r.st.field(r.i)}, nil
}

// value returns data.kube_proxy_lint as one Rego value, every field converted.
func (st *wsState) value() ast.Value {
	items := make([][2]*ast.Term, len(viewFields))
	for i, f := range viewFields {
		items[i] = [2]*ast.Term{f.key, ast.NewTerm(st.field(i))}
	}
	return ast.NewObject(items...)
}

// input returns the input value of document d, whose generic form is obj, converted to a
// Rego value directly (a JSON round trip of every document costs more than evaluating the
// rules).
//
// The input is built for one evaluation and not kept (issue 24: inputs cached for the whole
// run held every evaluated document twice more, as a generic form and as a Rego value); held
// is roughly what it holds, which the caller charges to the run's budget while it evaluates.
func (st *wsState) input(ws *checker.Workspace, d *checker.Document, obj any) (v ast.Value, held int64, err error) {
	in := st.inputWith(ws, d, obj)
	ins := in.Instances
	str := ast.StringTerm
	o := ast.NewObject(
		ast.Item(str("id"), str(in.ID)),
		ast.Item(str("file"), str(in.File)),
		ast.Item(str("document"), ast.IntNumberTerm(in.Document)),
		ast.Item(str("apiVersion"), str(in.APIVersion)),
		ast.Item(str("kind"), str(in.Kind)),
		ast.Item(str("namespace"), str(in.Namespace)),
		ast.Item(str("name"), str(in.Name)),
		ast.Item(str("scope"), str(in.Scope)),
		ast.Item(str("unit"), str(in.Unit)),
		ast.Item(str("templated"), ast.BooleanTerm(in.Templated)),
	)
	o.Insert(str("target"), ast.NewTerm(viewValue(in.Target)))
	if in.Embedded != nil {
		o.Insert(str("embedded"), ast.NewTerm(pathValue(in.Embedded)))
	}
	objV, err := sharedValue(obj, map[uintptr]ast.Value{})
	if err != nil {
		return nil, 0, fmt.Errorf("build policy input: %w", err)
	}
	insV := ast.NewArray()
	if len(ins) > 0 {
		insV = st.instancesValue(ins)
	}
	o.Insert(ast.InternedTerm("object"), ast.NewTerm(objV))
	o.Insert(ast.InternedTerm("instances"), ast.NewTerm(insV))
	return o, genericSize(obj, map[uintptr]bool{}), nil
}

// genericSize is roughly what the Rego value of a generic value holds: values shared by YAML
// aliases count once, as sharedValue converts them once.
func genericSize(v any, seen map[uintptr]bool) int64 {
	switch x := v.(type) {
	case map[string]any:
		key := reflect.ValueOf(x).Pointer()
		if seen[key] {
			return termBytes
		}
		seen[key] = true
		n := int64(termBytes)
		for k, e := range x {
			n += 2*termBytes + int64(len(k)) + genericSize(e, seen)
		}
		return n
	case []any:
		if len(x) == 0 {
			return termBytes
		}
		key := reflect.ValueOf(x).Pointer()
		if seen[key] {
			return termBytes
		}
		seen[key] = true
		n := int64(termBytes)
		for _, e := range x {
			n += termBytes + genericSize(e, seen)
		}
		return n
	case string:
		return termBytes + int64(len(x))
	}
	return termBytes
}

// CommandLineKind is the kind of the input a rule gets for a text file holding kube-proxy
// command lines (a script, a systemd unit, a Dockerfile): rules whose METADATA kinds list it
// are evaluated once per such file, with the command-line instances in input.instances, the
// file's path as input.id and input.file, and an empty input.object. Their findings give a
// location, since there is no document for a path to point into.
const CommandLineKind = "command line"

// commandInput returns the input of the command lines of a text file.
func (st *wsState) commandInput(file string) ast.Value {
	str := ast.StringTerm
	o := ast.NewObject(
		ast.Item(str("id"), str(file)),
		ast.Item(str("file"), str(file)),
		ast.Item(str("document"), ast.IntNumberTerm(0)),
		ast.Item(str("apiVersion"), str("")),
		ast.Item(str("kind"), str(CommandLineKind)),
		ast.Item(str("namespace"), str("")),
		ast.Item(str("name"), str("")),
		ast.Item(str("scope"), str(st.byCommandFile[file][0].Scope)),
		ast.Item(str("templated"), ast.BooleanTerm(st.files[file] != nil && st.files[file].Templated)),
		ast.Item(str("object"), ast.NewTerm(ast.NewObject())),
	)
	o.Insert(ast.InternedTerm("instances"), ast.NewTerm(st.instancesValue(st.byCommandFile[file])))
	return o
}

// instancesValue converts a document's instances for one evaluation, dropped with its input.
// They were converted once and kept for every rule (the documents of kube-proxy workloads are
// each evaluated by several): 56 MB of Rego values held through the rules at 100,000 files
// (issue 24), and converting them for each evaluation measured no slower.
func (st *wsState) instancesValue(ins []InstanceView) *ast.Array {
	arr, _ := viewValue(ins).(*ast.Array)
	if arr == nil {
		arr = ast.NewArray()
	}
	return arr
}

// docID identifies a document: file#index, plus the embedding path for embedded ones.
func docID(d *checker.Document) string {
	o := d.Outer()
	id := o.File.Path + "#" + strconv.Itoa(o.Index)
	if d.Parent != nil {
		id += "/" + d.ParentPath.String()
	}
	return id
}

// InputOf returns the input of document d of ws.
func InputOf(ws *checker.Workspace, d *checker.Document) (*Input, error) {
	return stateFor(ws).inputOf(ws, d)
}

func (st *wsState) inputOf(ws *checker.Workspace, d *checker.Document) (*Input, error) {
	obj, err := d.GenericUncached()
	if err != nil {
		return nil, fmt.Errorf("convert %s: %w", docID(d), err)
	}
	return st.inputWith(ws, d, obj), nil
}

// inputWith returns the input of d with obj, its generic form.
func (st *wsState) inputWith(ws *checker.Workspace, d *checker.Document, obj any) *Input {
	r := st.ref(d)
	ins := st.byDoc[r.ID]
	if ins == nil {
		ins = []InstanceView{}
	}
	return &Input{
		ID: r.ID, File: r.File, Document: r.Document, Embedded: r.Embedded,
		APIVersion: d.APIVersion, Kind: d.Kind, Namespace: d.Namespace, Name: d.Name,
		Scope: r.Scope, Unit: checker.UnitOf(r.File), Target: targetView(ws.TargetOf(r.File)),
		Templated: d.File.Outer().Templated, Instances: ins, Object: obj,
	}
}

// viewCtx builds the view of one workspace; it caches the cluster of each file, since large
// repositories have thousands of documents.
type viewCtx struct {
	ws     *checker.Workspace
	scopes map[string]string
	// docs are the workspace's documents, built on first use by listed.
	docs map[*checker.Document]bool
	// noDocuments leaves View.Documents empty: wsState lists them from its refs when a
	// policy reads them.
	noDocuments bool
}

func newViewCtx(ws *checker.Workspace) *viewCtx {
	return &viewCtx{ws: ws, scopes: map[string]string{}}
}

func (c *viewCtx) scope(file string) string {
	if s, ok := c.scopes[file]; ok {
		return s
	}
	s := c.ws.ScopeOf(file)
	c.scopes[file] = s
	return s
}

func (c *viewCtx) docRef(d *checker.Document) DocRef {
	o := d.Outer()
	r := DocRef{
		ID: docID(d), File: o.File.Path, Document: o.Index,
		APIVersion: d.APIVersion, Kind: d.Kind, Namespace: d.Namespace, Name: d.Name,
		Scope: c.scope(o.File.Path),
	}
	if d.Parent != nil {
		r.Embedded = append(checker.Path(nil), d.ParentPath...)
		if r.Namespace == "" && r.Name == "" {
			r.Namespace, r.Name = d.Parent.Namespace, d.Parent.Name
		}
	}
	return r
}

func (c *viewCtx) docRefPtr(d *checker.Document) *DocRef {
	if d == nil {
		return nil
	}
	r := c.docRef(d)
	return &r
}

func loc(pos, end checker.Position) *Location {
	if !pos.IsValid() {
		return nil
	}
	if !end.IsValid() {
		end = pos
	}
	return &Location{File: pos.Filename, Line: pos.Line, Column: pos.Column, EndLine: end.Line, EndColumn: end.Column}
}

func setting(s checker.Setting) SettingView {
	v := SettingView{Value: s.Value, Origin: s.Origin.String()}
	if p, e, ok := s.Where(); ok {
		v.Location = loc(p, e)
	}
	if s.Doc != nil && s.Flag == nil {
		v.Doc, v.Path = docID(s.Doc), s.Path
	}
	return v
}

var instanceKinds = map[checker.InstanceKind]string{
	checker.InstanceWorkload: "workload", checker.InstanceConfig: "config",
	checker.InstanceCommand: "command", checker.InstanceInstaller: "installer",
}

// BuildView builds data.kube_proxy_lint for ws.
func BuildView(ws *checker.Workspace) *View { return newViewCtx(ws).view() }

func (c *viewCtx) view() *View {
	ws := c.ws
	v := &View{
		SchemaVersion: SchemaVersion,
		Target:        targetView(ws.Target),
		Targets:       []TargetView{},
		Instances:     []InstanceView{},
		Services:      []ServiceView{},
		Replacements:  []Replacement{},
		Documents:     []DocRef{},
	}
	for _, t := range ws.ScopeTargets() {
		v.Targets = append(v.Targets, targetView(t))
	}
	if !c.noDocuments {
		v.Documents = make([]DocRef, 0, len(ws.Docs))
		for _, d := range ws.Docs {
			v.Documents = append(v.Documents, c.docRef(d))
		}
	}
	for _, in := range ws.Instances {
		t := ws.InstanceTarget(in)
		iv := InstanceView{
			Label: in.Label, Kind: instanceKinds[in.Kind], Windows: in.Windows,
			Target:   targetView(t),
			Workload: c.docRefPtr(in.Workload), Container: in.Container,
			ConfigFlag: in.HasConfigFlag(), Config: c.docRefPtr(in.Config),
			ConfigUnresolved: in.ConfigUnresolved,
			Mode:             setting(in.Mode(t.Version)),
			ConfigVia:        []RelatedView{}, Flags: []FlagView{}, FeatureGates: []GateView{},
			Installer: installerView(c, in, t.Version),
		}
		switch {
		case in.Workload != nil:
			iv.Scope, iv.Unit = c.scope(in.Workload.File.Outer().Path), checker.UnitOf(in.Workload.File.Outer().Path)
		case in.Source != nil:
			iv.Scope, iv.Unit = c.scope(in.Source.Path), checker.UnitOf(in.Source.Path)
			if in.Kind == checker.InstanceCommand {
				iv.Source = in.Source.Outer().Path
			}
		case in.Config != nil:
			iv.Scope, iv.Unit = c.scope(in.Config.File.Outer().Path), checker.UnitOf(in.Config.File.Outer().Path)
		}
		for _, r := range in.ConfigVia {
			iv.ConfigVia = append(iv.ConfigVia, RelatedView{Message: r.Message, Location: loc(r.Pos, r.End)})
		}
		// Looked up once: per flag, it read the whole command line again (issue 22 item 16).
		withConfig := in.Flag("config") != nil
		for i := range in.Flags {
			f := &in.Flags[i]
			fv := FlagView{Name: f.Name, Value: f.Value, HasValue: f.HasValue, Location: loc(f.Pos, f.End),
				Ignored: withConfig && checker.IgnoredWithConfig(f.Name)}
			if f.Doc != nil {
				fv.Doc, fv.Path = docID(f.Doc), f.NodePath
			}
			iv.Flags = append(iv.Flags, fv)
		}
		for _, g := range in.FeatureGates() {
			gv := GateView{Name: g.Name, Value: g.Value, Invalid: g.Invalid, Raw: g.Raw, Origin: g.Origin.String()}
			if p, e, ok := g.Where(); ok {
				gv.Location = loc(p, e)
			}
			iv.FeatureGates = append(iv.FeatureGates, gv)
		}
		addrs, s := in.NodePortAddresses()
		iv.NodePortAddresses = NodePortView{Value: append([]string{}, addrs...), Origin: s.Origin.String()}
		if p, e, ok := s.Where(); ok {
			iv.NodePortAddresses.Location = loc(p, e)
		}
		v.Instances = append(v.Instances, iv)
	}
	for _, d := range ws.Docs {
		if d.Kind == "Service" && d.Parent == nil {
			v.Services = append(v.Services, c.serviceView(d))
		}
	}
	v.Replacements = c.replacements()
	return v
}

func (c *viewCtx) serviceView(d *checker.Document) ServiceView {
	typ, ports := d.ServicePorts()
	sv := ServiceView{Doc: c.docRef(d), Type: typ, NodePorts: []NodePortPort{}}
	if sv.Type == "" {
		sv.Type = "ClusterIP"
	}
	for _, p := range ports {
		sv.NodePorts = append(sv.NodePorts, NodePortPort{Name: p.Name, Port: p.Port, NodePort: p.NodePort, Protocol: p.Protocol, Location: loc(p.Pos, p.End)})
	}
	return sv
}

// pathValue is a Path as Rego sees it: keys as strings, indices as numbers.
func pathValue(p checker.Path) *ast.Array {
	terms := make([]*ast.Term, len(p))
	for i, e := range p {
		if n, err := strconv.Atoi(e); err == nil && checker.IsCanonicalIndex(e) {
			terms[i] = ast.IntNumberTerm(n)
		} else {
			terms[i] = ast.StringTerm(e)
		}
	}
	return ast.NewArray(terms...)
}

// sharedValue converts a document's generic form to a Rego value like ast.InterfaceToValue,
// but converts a map or list that the generic form shares (every alias of one YAML anchor)
// once and shares the result: the input of an alias-heavy document costs memory in proportion
// to its source, not to its expansion. Rego never modifies its input.
func sharedValue(v any, memo map[uintptr]ast.Value) (ast.Value, error) {
	switch x := v.(type) {
	case map[string]any:
		key := reflect.ValueOf(x).Pointer()
		if val, ok := memo[key]; ok {
			return val, nil
		}
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		items := make([][2]*ast.Term, 0, len(x))
		for _, k := range keys {
			e, err := sharedValue(x[k], memo)
			if err != nil {
				return nil, err
			}
			items = append(items, ast.Item(ast.StringTerm(k), ast.NewTerm(e)))
		}
		val := ast.NewObject(items...)
		memo[key] = val
		return val, nil
	case []any:
		if len(x) == 0 {
			return ast.NewArray(), nil
		}
		key := reflect.ValueOf(x).Pointer()
		if val, ok := memo[key]; ok {
			return val, nil
		}
		terms := make([]*ast.Term, len(x))
		for i, e := range x {
			t, err := sharedValue(e, memo)
			if err != nil {
				return nil, err
			}
			terms[i] = ast.NewTerm(t)
		}
		val := ast.NewArray(terms...)
		memo[key] = val
		return val, nil
	}
	return ast.InterfaceToValue(v)
}
