package load

import (
	"path"
	"regexp"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/kube-proxy-lint/kube-proxy-lint/checker"
	"github.com/kube-proxy-lint/kube-proxy-lint/checker/text"
	"github.com/kube-proxy-lint/kube-proxy-lint/checker/text/shell"
)

// Strings that hold kube-proxy flags (RULES.md "strings that hold a document or flags", issue
// 21 item 2), whatever key of whatever tool holds them:
//
//   - k3s/RKE2's --kube-proxy-arg inside a string or list of flags (a wrapper's
//     `server_args: "--kube-proxy-arg proxy-mode=ipvs"`, k3d's
//     `--k3s-arg "--kube-proxy-arg=proxy-mode=ipvs@server:*"`): a k3s or RKE2 installer
//     instance, whose defaults still apply;
//   - proxy-mode=ipvs as an item of a list of name=value flags (`kubeProxyArgs: [proxy-mode=ipvs]`)
//     or as a whole string;
//   - --proxy-mode ipvs / --proxy-mode=ipvs inside a string or list of flags.
//
// Precision comes first: the string (or list) must consist of flags and their values only
// (a program word, prose or a script is not a list of flags: those are other finders' or no
// one's), the key holding it must not name prose (description, help, ...), a bare proxy-mode
// and --proxy-mode need a kube-proxy mode word as value (other programs have a --proxy-mode
// of their own: Odoo's takes no value, others take on/off/tproxy), and argv lists of
// containers are left to the workload finder, which knows what program they run. Flags that
// another finder already read (a k3s config's kube-proxy-arg, a k3s install line, a
// kube-proxy container's args) are not found twice.

// stringFlagModes are the values that make a bare proxy-mode=X or --proxy-mode X kube-proxy's
// (lowercased: a wrong case is kube-proxy's KP103).
var stringFlagModes = map[string]bool{"iptables": true, "ipvs": true, "nftables": true, "userspace": true, "kernelspace": true}

// proseKeyRe matches keys whose strings are prose about flags, not flags, or data that only
// looks like name=value flags (label selectors, ConfigMap literals, environments, tags).
var proseKeyRe = regexp.MustCompile(`(?i)(desc|help|message|msg|comment|example|usage|summary|title|note|doc|readme|text|body|reason|hint|label|annotation|echo|log|selector|match|filter|literal|environment|^env$|tags?$|sysctl|query)`)

// k3dNodeFilterRe is k3d's node filter suffix of a --k3s-arg value ("@server:*", "@agent:0;1").
var k3dNodeFilterRe = regexp.MustCompile(`@(?:server|servers|agent|agents|all|loadbalancer)(?::[^@\s]*)?$`)

// stringFlagInstances finds kube-proxy flags in strings of the real YAML and JSON files (see
// above). It runs after every other finder: have are their instances.
func stringFlagInstances(ws *checker.Workspace, have []*checker.Instance) []*checker.Instance {
	var out []*checker.Instance
	var claimed map[string][][2]int
	for _, f := range ws.Files {
		if f.Parent != nil || f.Render != nil || f.Format != checker.FormatYAML || !f.Contains("proxy-mode") || inChart(ws, f.Path) {
			continue
		}
		if claimed == nil {
			claimed = claimedFlagSpans(have)
		}
		for _, d := range f.Docs {
			if d.Parent != nil || d.Node == nil || d.Pruned || !d.Contains("proxy-mode") {
				continue
			}
			sf := &stringFlagFinder{ws: ws, d: d, claimed: claimed[f.Path], have: have}
			sf.walk(d.Node, nil, "", 0)
			out = append(out, sf.found...)
		}
	}
	if claimed == nil {
		claimed = claimedFlagSpans(have)
	}
	return append(out, hclStringFlagInstances(ws, claimed, have)...)
}

// inChart reports whether file belongs to a Helm chart (a directory above it holds a
// Chart.yaml): the chart's renderings say which values reach a kube-proxy, and where.
func inChart(ws *checker.Workspace, file string) bool {
	for dir := path.Dir(file); ; dir = path.Dir(dir) {
		name := "Chart.yaml"
		if dir != "." {
			name = dir + "/Chart.yaml"
		}
		if ws.File(name) != nil {
			return true
		}
		if dir == "." || dir == "/" || dir == "" {
			return false
		}
	}
}

// claimedFlagSpans returns, per file, the byte spans of the flags other finders found.
func claimedFlagSpans(ins []*checker.Instance) map[string][][2]int {
	out := map[string][][2]int{}
	add := func(p, e checker.Position) {
		if p.IsValid() && e.Offset >= p.Offset {
			out[p.Filename] = append(out[p.Filename], [2]int{p.Offset, e.Offset})
		}
	}
	for _, in := range ins {
		for _, fl := range in.Flags {
			add(fl.Pos, fl.End)
			add(fl.ValuePos, fl.ValueEnd)
		}
		if in.Installer != nil && in.Installer.Mode != nil {
			add(in.Installer.Mode.Pos, in.Installer.Mode.End)
			add(in.Installer.Mode.ValuePos, in.Installer.Mode.ValueEnd)
		}
	}
	return out
}

type stringFlagFinder struct {
	ws      *checker.Workspace
	d       *checker.Document
	claimed [][2]int
	have    []*checker.Instance
	found   []*checker.Instance
}

// maxStringFlagDepth bounds the walk of a document's tree.
const maxStringFlagDepth = 64

func (sf *stringFlagFinder) walk(n *yaml.Node, p checker.Path, key string, depth int) {
	if n == nil || depth > maxStringFlagDepth {
		return
	}
	switch n.Kind {
	case yaml.DocumentNode:
		for _, c := range n.Content {
			sf.walk(c, p, key, depth+1)
		}
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i]
			sf.walk(n.Content[i+1], p.Append(k.Value), k.Value, depth+1)
		}
	case yaml.SequenceNode:
		if sf.list(n, p, key) {
			return
		}
		for i, c := range n.Content {
			sf.walk(c, p.Append(i), key, depth+1)
		}
	case yaml.ScalarNode:
		if strings.Contains(n.Value, "proxy-mode") && n.ShortTag() == "!!str" {
			sf.flagStrings(p, key, []*yaml.Node{n}, false)
		}
	}
}

// list reads a sequence of scalars as one list of flags; false when it is not one (its items
// are then walked one by one).
func (sf *stringFlagFinder) list(n *yaml.Node, p checker.Path, key string) bool {
	mentions := false
	for _, c := range n.Content {
		if c.Kind != yaml.ScalarNode {
			return false
		}
		if strings.Contains(c.Value, "proxy-mode") {
			mentions = true
		}
	}
	if !mentions {
		return true
	}
	sf.flagStrings(p, key, n.Content, true)
	return true
}

// sfWord is one word of a string that may hold flags, with where it is.
type sfWord struct {
	w    shell.Word
	node *yaml.Node
	path checker.Path
	// whole is set when the word is the whole scalar (a list item or a string of one word);
	// item when the scalar is an item of the list read.
	whole, item bool
}

// flagStrings reads nodes (one string, or the items of a list when items) as a list of flags.
func (sf *stringFlagFinder) flagStrings(p checker.Path, key string, nodes []*yaml.Node, items bool) {
	if key != "" && proseKeyRe.MatchString(key) {
		return
	}
	var words []sfWord
	for i, n := range nodes {
		np := p
		if items {
			np = p.Append(i)
		}
		if strings.TrimSpace(n.Value) == "" {
			continue
		}
		ws := placeholderWords(n.Value)
		for _, w := range ws {
			words = append(words, sfWord{w: w, node: n, path: np, whole: len(ws) == 1, item: items})
		}
	}
	if len(words) == 0 || !flagWords(words) {
		return
	}
	if k3sArgKeys[key] {
		// A kube-proxy-arg list or string nested in another tool's configuration (Rancher's
		// machineGlobalConfig, a Terraform heredoc of an RKE2 config.yaml): k3s's own key.
		var args []k3sArg
		for _, w := range words {
			if w.whole && bareFlagRe.MatchString(strings.TrimLeft(w.w.Text, "-")) {
				args = append(args, k3sArg{w: w, from: 0, to: len(w.w.Text)})
			}
		}
		if len(args) == len(words) && hasK3sMode(args) {
			sf.addK3s(p, key, args)
		}
		return
	}
	if k3s := sf.k3sArgs(words); len(k3s) > 0 {
		sf.addK3s(p, key, k3s)
		return
	}
	if inContainerArgv(p) {
		// A container's argv: the workload finder knows whether it runs kube-proxy.
		return
	}
	flags, unknown := sf.flags(words)
	var mode *checker.Flag
	for i := range flags {
		if flags[i].Name == "proxy-mode" {
			mode = &flags[i]
		}
	}
	if mode == nil || !mode.HasValue || sf.isClaimed(mode.ValuePos) {
		return
	}
	// A mode word, or a placeholder where the path says it is kube-proxy's (kubeProxy.args).
	known := stringFlagModes[strings.ToLower(mode.Value)]
	templated := text.HasPlaceholder(mode.Value) && strings.Contains(strings.ToLower(strings.Join(p, ".")), "proxy")
	if !known && !templated {
		return
	}
	sf.addCommand(p, key, flags, unknown)
}

// flagWords reports whether words are flags and their values only: --name[=value], -n, a
// name=value word standing alone as a list item or string, the value after a --name, and
// placeholders; the k3s subcommands server and agent may lead.
func flagWords(words []sfWord) bool {
	i := 0
	if words[0].w.Text == "server" || words[0].w.Text == "agent" {
		i++
	}
	value := false
	for ; i < len(words); i++ {
		t := words[i].w.Text
		switch {
		case strings.HasPrefix(t, "-") && t != "-" && t != "--":
			name, _, hasEq := strings.Cut(strings.TrimLeft(t, "-"), "=")
			if !flagNameRe.MatchString(name) {
				return false
			}
			value = !hasEq && !boolFlags[name]
		case value:
			value = false
		case words[i].whole && bareFlagRe.MatchString(t):
		case text.HasPlaceholder(t) || strings.HasPrefix(t, "$"):
		default:
			return false
		}
	}
	return true
}

var (
	flagNameRe = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*$`)
	bareFlagRe = regexp.MustCompile(`^[a-z][a-z0-9-]*=[^\n]*$`)
)

// inContainerArgv reports whether p is inside a container's command or args.
func inContainerArgv(p checker.Path) bool {
	for i := 0; i+2 < len(p); i++ {
		switch p[i] {
		case "containers", "initContainers", "ephemeralContainers":
			if p[i+2] == "command" || p[i+2] == "args" {
				return true
			}
		}
	}
	return false
}

func (sf *stringFlagFinder) isClaimed(p checker.Position) bool {
	for _, s := range sf.claimed {
		if p.Offset >= s[0] && p.Offset <= s[1] {
			return true
		}
	}
	return false
}

// span returns the positions of w.Text[from:to] in the file.
func (sf *stringFlagFinder) span(w sfWord, from, to int) (checker.Position, checker.Position) {
	a, b := w.w.Span(from, to)
	return sf.d.SubPos(w.node, a, b)
}

// flagOf builds the flag written name=value in word w from byte at of its text; the value
// ends at end.
func (sf *stringFlagFinder) flagOf(w sfWord, at, end int) checker.Flag {
	t := w.w.Text[at:end]
	lead := len(t) - len(strings.TrimLeft(t, "-"))
	name, val, hasEq := strings.Cut(t[lead:], "=")
	fl := checker.Flag{Name: name, Value: val, HasValue: hasEq, Doc: sf.d, Node: w.node, NodePath: w.path}
	fl.Pos, fl.End = sf.span(w, at, end)
	fl.ValuePos, fl.ValueEnd = fl.Pos, fl.End
	if hasEq {
		vf := at + lead + len(name) + 1
		fl.ValuePos, fl.ValueEnd = sf.span(w, vf, end)
		if a, b := w.w.Span(vf, end); b-a == end-vf {
			setValueSpan(&fl, w.node, a, b)
		}
	}
	return fl
}

// flags parses kube-proxy flags from words: --name=value, --name value, name=value.
func (sf *stringFlagFinder) flags(words []sfWord) (flags []checker.Flag, unknown bool) {
	for i := 0; i < len(words); i++ {
		w := words[i]
		t := w.w.Text
		if !strings.HasPrefix(t, "-") {
			if bareFlagRe.MatchString(t) && w.whole {
				flags = append(flags, sf.flagOf(w, 0, len(t)))
			} else if text.HasPlaceholder(t) || strings.HasPrefix(t, "$") {
				unknown = true
			}
			continue
		}
		if strings.Contains(t, "=") {
			fl := sf.flagOf(w, 0, len(t))
			fl.Remove = sf.remove(w, w)
			flags = append(flags, fl)
			continue
		}
		name := strings.TrimLeft(t, "-")
		fl := checker.Flag{Name: name, Doc: sf.d, Node: w.node, NodePath: w.path}
		fl.Pos, fl.End = sf.span(w, 0, len(t))
		fl.ValuePos, fl.ValueEnd = fl.Pos, fl.End
		last := w
		if !boolFlags[name] && i+1 < len(words) && !strings.HasPrefix(words[i+1].w.Text, "-") {
			v := words[i+1]
			fl.Value, fl.HasValue = v.w.Text, true
			fl.ValuePos, fl.ValueEnd = sf.span(v, 0, len(v.w.Text))
			if a, b := v.w.Span(0, len(v.w.Text)); b-a == len(v.w.Text) {
				setValueSpan(&fl, v.node, a, b)
			}
			_, fl.End = fl.ValuePos, fl.ValueEnd
			last = v
			i++
		}
		fl.Remove = sf.remove(w, last)
		flags = append(flags, fl)
	}
	return flags, unknown
}

// remove returns the edits that delete the words first..last: whole list items, or the words
// of one string.
func (sf *stringFlagFinder) remove(first, last sfWord) []checker.TextEdit {
	t := func(w sfWord) token {
		return token{text: w.w.Text, doc: sf.d, node: w.node, path: w.path, from: w.w.Pos, to: w.w.End, whole: w.item && w.whole && w.w.Pos == 0 && w.w.End == len(w.node.Value)}
	}
	a, b := t(first), t(last)
	if a.whole != b.whole || (!a.whole && first.node != last.node) {
		return nil
	}
	if a.whole {
		return removeSeqItems(a, b)
	}
	return removeEdits(a, b)
}

// k3sArg is one --kube-proxy-arg: the word holding the argument and its byte range.
type k3sArg struct {
	w        sfWord
	from, to int
}

// k3sArgs returns the arguments of the --kube-proxy-arg options among words (also inside
// k3d's --k3s-arg "--kube-proxy-arg=...@server:*").
func (sf *stringFlagFinder) k3sArgs(words []sfWord) []k3sArg {
	var out []k3sArg
	for i := 0; i < len(words); i++ {
		w := words[i]
		t := w.w.Text
		var arg k3sArg
		switch {
		case strings.HasPrefix(t, "--kube-proxy-arg="):
			arg = k3sArg{w: w, from: len("--kube-proxy-arg="), to: len(t)}
		case t == "--kube-proxy-arg" && i+1 < len(words):
			i++
			arg = k3sArg{w: words[i], from: 0, to: len(words[i].w.Text)}
		default:
			continue
		}
		if m := k3dNodeFilterRe.FindStringIndex(arg.w.w.Text[arg.from:arg.to]); m != nil {
			arg.to = arg.from + m[0]
		}
		if arg.to > arg.from {
			out = append(out, arg)
		}
	}
	if hasK3sMode(out) {
		return out
	}
	return nil
}

// k3sArgKeys are k3s's and RKE2's keys for kube-proxy arguments.
var k3sArgKeys = map[string]bool{"kube-proxy-arg": true, "kube-proxy-arg+": true}

// hasK3sMode reports whether one of args sets proxy-mode.
func hasK3sMode(args []k3sArg) bool {
	for _, a := range args {
		if strings.HasPrefix(strings.TrimLeft(a.w.w.Text[a.from:a.to], "-"), "proxy-mode=") {
			return true
		}
	}
	return false
}

// addK3s adds the k3s or RKE2 installer instance of --kube-proxy-arg options found in a
// string (see k3sCommandInstances for install command lines), unless another finder read
// them.
func (sf *stringFlagFinder) addK3s(p checker.Path, key string, args []k3sArg) {
	var flags []checker.Flag
	for _, a := range args {
		fl := sf.flagOf(a.w, a.from, a.to)
		if sf.isClaimed(fl.ValuePos) {
			return
		}
		flags = append(flags, fl)
	}
	f := sf.d.File.Outer()
	hint := f.Path + " " + strings.Join(p, ".")
	rke2 := sf.d.Contains("rke2") && !sf.d.Contains("k3s")
	if sf.d.File.Parent != nil {
		// A string of a Terraform file: the file names the distribution.
		rke2 = f.Contains("rke2") && !f.Contains("k3s")
	}
	if rke2 {
		hint += " rke2"
	}
	ins := newK3sInstaller(k3sName(hint, sf.d.Has(checker.Path{"cni"})), f)
	ins.Doc = sf.d
	ins.Anchor, ins.AnchorEnd = flags[0].Pos, flags[0].End
	if kp, ke, ok := sf.d.KeyPos(p); ok && len(p) > 0 {
		ins.Anchor, ins.AnchorEnd = kp, ke
	}
	in := newInstallerInstance(ins, ins.Name+" --kube-proxy-arg in "+sf.where(p, key))
	in.Flags = flags
	sf.found = append(sf.found, in)
}

// addCommand adds a kube-proxy instance of flags found in a string or list of an unknown tool.
func (sf *stringFlagFinder) addCommand(p checker.Path, key string, flags []checker.Flag, unknown bool) {
	f := sf.d.File.Outer()
	in := &checker.Instance{Kind: checker.InstanceCommand, Source: f, Flags: flags, FlagsUnknown: unknown,
		Label: "kube-proxy flags in " + sf.where(p, key)}
	in.Program, in.ProgramEnd = flags[0].Pos, flags[0].End
	if kp, ke, ok := sf.d.KeyPos(p); ok && len(p) > 0 {
		in.Program, in.ProgramEnd = kp, ke
	}
	if cf := in.Flag("config"); cf != nil {
		resolveTextConfig(newConfigIndex(sf.ws), in, cf)
	}
	sf.found = append(sf.found, in)
}

// where names the string for labels: "key extra_args in file.yaml".
func (sf *stringFlagFinder) where(p checker.Path, key string) string {
	f := sf.d.File.Outer()
	if key == "" {
		return f.Path
	}
	if len(p) == 0 {
		return key + " in " + f.Path
	}
	return strings.Join(p, ".") + " in " + f.Path
}

// placeholderWords splits v into shell words, each template placeholder ({{ .Values.x }},
// {{ kube_proxy_mode }}) kept inside one word with its true text.
func placeholderWords(v string) []shell.Word {
	src := []byte(v)
	spans := text.TemplateSpans(src)
	if len(spans) > 0 {
		src = append([]byte(nil), src...)
		for _, sp := range spans {
			for i := max(sp.From, 0); i < min(sp.To, len(src)); i++ {
				src[i] = '_'
			}
		}
	}
	s := shell.Parse(src, 0, len(src), shell.Options{NoHeredocs: true})
	var ws []shell.Word
	for _, c := range s.Commands {
		for _, w := range c.Words {
			if len(spans) > 0 && len(w.Offs) == len(w.Text)+1 {
				b := make([]byte, len(w.Text))
				for i := range b {
					b[i] = v[w.Offs[i]]
				}
				w.Text = string(b)
			}
			ws = append(ws, w)
		}
	}
	return ws
}
