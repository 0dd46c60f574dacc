package rules

import (
	"bytes"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"

	"go.yaml.in/yaml/v3"

	"github.com/kube-proxy-lint/kube-proxy-lint/checker"
	"github.com/kube-proxy-lint/kube-proxy-lint/checker/text"
	"github.com/kube-proxy-lint/kube-proxy-lint/checker/text/shell"
)

// Shell commands wherever they are, for KP401 (iptables-chain-dependency) and KP402
// (ipvs-state-dependency): a visitor of every real command of the workspace (scripts, systemd Exec lines, Dockerfiles,
// Makefile recipes, container command/args and sh -c scripts, Ansible shell/command tasks,
// ConfigMap scripts, cloud-init runcmd) with a way to position any part of a word.

// kp4CmdVisit is one command and where its words are.
type kp4CmdVisit struct {
	cmd    *shell.Command
	script *shell.Script
	// next is the command after cmd in the script (the other side of a pipe), or nil.
	next *shell.Command
	// span positions bytes [a, b) of w.Text.
	span func(w shell.Word, a, b int) (checker.Position, checker.Position)
	// bodySpan positions bytes [a, b) of heredoc h's body.
	bodySpan func(h *shell.Heredoc, a, b int) (checker.Position, checker.Position)
	obj      *checker.ObjectRef
	path     checker.Path
	// kube is true when the file evidently concerns Kubernetes (a manifest, or a script that
	// names kube-proxy, kubectl, kubeadm, kubelet, kube-ipvs0 or a KUBE- chain).
	kube bool
	// bestEffort is set for an Ansible task whose failure is ignored (ignore_errors: true,
	// failed_when: false).
	bestEffort bool
	// modeGuard holds the proxy modes an Ansible task's when: condition restricts it to
	// (kube_proxy_mode == 'ipvs'), nil when it has none.
	modeGuard []string
}

// guardedBy reports whether the command runs only under a condition on the proxy mode being
// one of modes: a shell condition around it or its Ansible task's when:.
func (v *kp4CmdVisit) guardedBy(modes ...string) bool {
	if kp4GuardedByMode(v.cmd.Guard, modes...) {
		return true
	}
	for _, g := range v.modeGuard {
		for _, m := range modes {
			if g == m {
				return true
			}
		}
	}
	return false
}

// kp4TaskGuards reads an Ansible task's failure handling and conditions.
func kp4TaskGuards(task *yaml.Node) (bestEffort bool, modeGuard []string) {
	for i := 0; i+1 < len(task.Content); i += 2 {
		k, v := task.Content[i].Value, task.Content[i+1]
		switch k {
		case "ignore_errors":
			b, ok := checker.YAML11Bool(v)
			bestEffort = bestEffort || (ok && b) || text.HasPlaceholder(v.Value)
		case "failed_when":
			b, ok := checker.YAML11Bool(v)
			bestEffort = bestEffort || (ok && !b)
		case "when":
			// A list of conditions is their conjunction: any one that restricts the mode
			// restricts the task.
			conds := []*yaml.Node{v}
			if v.Kind == yaml.SequenceNode {
				conds = v.Content
			}
			for _, c := range conds {
				if c.Kind == yaml.ScalarNode {
					modeGuard = append(modeGuard, kp4WhenModes(c.Value)...)
				}
			}
		}
	}
	return bestEffort, modeGuard
}

// kp4WhenCmpRe matches a comparison of a mode variable with a literal in a Jinja2 condition,
// either way round: kube_proxy_mode == 'ipvs', "ipvs" != proxy_mode, mode in ['ipvs'].
var kp4WhenCmpRe = regexp.MustCompile(`(?i)\b(\w*mode\w*)\s*(==|!=|is\s+not|is|not\s+in|in)\s*(\[[^\]]*\]|["']\w+["'])|["'](\w+)["']\s*(==|!=)\s*(\w*mode\w*)\b`)

// kp4WhenBoolRe matches a bare truthy variable about ipvs (kube_proxy_ipvs_enabled,
// use_ipvs | bool), not negated.
var kp4WhenBoolRe = regexp.MustCompile(`(?i)^\s*(\w*ipvs\w*)(\s*\|\s*bool)?\s*$`)

// kp4WhenModes returns the proxy modes a Jinja2 when: condition restricts a task to: the
// literal of an == or in comparison on a mode variable; for != 'nftables' the two modes that
// have chains. A condition with "or" restricts nothing (either side may hold), nor does a
// negated one: != 'ipvs' runs the task everywhere but ipvs.
func kp4WhenModes(cond string) []string {
	low := strings.ToLower(cond)
	if strings.Contains(low, " or ") {
		return nil
	}
	if m := kp4WhenBoolRe.FindStringSubmatch(cond); m != nil {
		return []string{checker.ModeIPVS}
	}
	var out []string
	for _, m := range kp4WhenCmpRe.FindAllStringSubmatch(cond, -1) {
		op, lit := m[2], m[3]
		if m[4] != "" {
			op, lit = m[5], m[4]
		}
		op = strings.Join(strings.Fields(strings.ToLower(op)), " ")
		var lits []string
		for _, l := range strings.FieldsFunc(lit, func(r rune) bool { return strings.ContainsRune("[]'\", \t", r) }) {
			lits = append(lits, strings.ToLower(l))
		}
		switch op {
		case "==", "is", "in":
			out = append(out, lits...)
		case "!=", "is not", "not in":
			if len(lits) == 1 && lits[0] == checker.ModeNFTables {
				out = append(out, checker.ModeIPVS, checker.ModeIPTables)
			}
		}
	}
	return out
}

var kp4KubeContextRe = regexp.MustCompile(`kube-proxy|kubectl|kubeadm|kubelet|kube-ipvs0|KUBE-|k3s|rke2|kubernetes`)

// kp4ScriptKube reports whether a script's commands (not its comments) concern Kubernetes.
func kp4ScriptKube(s *shell.Script) bool {
	for i := range s.Commands {
		for _, w := range s.Commands[i].Words {
			if kp4KubeContextRe.MatchString(w.Text) {
				return true
			}
		}
	}
	for i := range s.Heredocs {
		if kp4KubeContextRe.Match(s.Heredocs[i].Body) {
			return true
		}
	}
	return false
}

// The words of the files that KP401 and KP402 lex (kp4ForEachCommand's needles), and both
// sets, by which a script's lexing is shared (scriptFor).
var (
	kp401Needles = []string{"KUBE-"}
	kp402Needles = []string{"kube-ipvs0", "ipvsadm", "KUBE-"}
	kp4Needles   = [][]string{kp401Needles, kp402Needles}
)

// hasNeedle reports whether b holds one of needles.
func hasNeedle(b []byte, needles []string) bool {
	for _, n := range needles {
		if bytes.Contains(b, []byte(n)) {
			return true
		}
	}
	return false
}

// kp4ForEachCommand calls fn for every command of the workspace, in the files that contain
// one of needles (a cheap byte search first, so most files are never lexed).
func kp4ForEachCommand(ws *checker.Workspace, needles []string, fn func(v *kp4CmdVisit)) {
	has := func(b []byte) bool { return hasNeedle(b, needles) }
	for _, f := range ws.Files {
		if f.Format != checker.FormatText || !has(f.Content) {
			continue
		}
		d := shell.DialectOf(f.Path, f.Content)
		if d == shell.DialectNone || d == shell.DialectFlags {
			continue
		}
		s, done := scriptFor(f, d)
		kube := kp4ScriptKube(s)
		ff := f
		kp4VisitScript(s, kube, nil, nil, func(w shell.Word, a, b int) (checker.Position, checker.Position) {
			x, y := w.Span(a, b)
			return ff.PositionAt(x), ff.PositionAt(y)
		}, func(h *shell.Heredoc, a, b int) (checker.Position, checker.Position) {
			return ff.PositionAt(h.Offs[min(a, len(h.Offs)-1)]), ff.PositionAt(h.Offs[min(b, len(h.Offs)-1)])
		}, fn)
		done()
	}
	relevant := map[*checker.File]bool{}
	for _, d := range ws.Docs {
		if d.Node == nil {
			continue
		}
		outer := d.File.Outer()
		r, ok := relevant[outer]
		if !ok {
			r = has(outer.Content)
			relevant[outer] = r
		}
		if r {
			kp4WalkCommandNodes(d, d.Node, make(checker.Path, 0, 16), "", fn)
		}
	}
}

func kp4VisitScript(s *shell.Script, kube bool, obj *checker.ObjectRef, path checker.Path,
	span func(w shell.Word, a, b int) (checker.Position, checker.Position),
	bodySpan func(h *shell.Heredoc, a, b int) (checker.Position, checker.Position), fn func(v *kp4CmdVisit)) {
	skip := false
	for i := range s.Commands {
		c := &s.Commands[i]
		if !c.PipeIn {
			// A pipeline that starts at a shell prompt is pasted terminal output.
			skip = kp4IsPrompt(c)
		}
		if skip {
			continue
		}
		v := &kp4CmdVisit{cmd: &s.Commands[i], script: s, span: span, bodySpan: bodySpan, obj: obj, path: path, kube: kube}
		if c.PipeOut {
			// The other side of the pipe: the next command of the same nesting that reads a
			// pipe (commands of a $(...) inside it come first).
			for j := i + 1; j < len(s.Commands); j++ {
				if s.Commands[j].PipeIn && s.Commands[j].Substituted == c.Substituted {
					v.next = &s.Commands[j]
					break
				}
			}
		}
		fn(v)
	}
}

// kp4PromptRe matches shell prompts pasted with a command: "user@host:~$", "[root@node ~]#".
var kp4PromptRe = regexp.MustCompile(`^(\$|#|%|>|\[?[\w.-]+@[\w.-]+.*|[\w.-]+[$#%>])$`)

// kp4IsPrompt reports whether a command's first word is a prompt, not a program.
func kp4IsPrompt(c *shell.Command) bool {
	if len(c.Words) == 0 || c.Words[0].Quoted {
		return false
	}
	w := c.Words[0].Text
	// Every prompt kp4PromptRe matches holds "@" or ends in $, #, % or >: most program
	// names are not run through it.
	if w == "" || strings.IndexByte(w, '@') < 0 && strings.IndexByte("$#%>", w[len(w)-1]) < 0 {
		return false
	}
	return kp4PromptRe.MatchString(w)
}

// kp4WalkCommandNodes finds command-bearing nodes of a YAML document. p is the walk's stack
// (appended to and cut back at each level, never kept): what is kept gets a copy.
func kp4WalkCommandNodes(d *checker.Document, n *yaml.Node, p checker.Path, key string, fn func(v *kp4CmdVisit)) {
	switch n.Kind {
	case yaml.MappingNode:
		if be, mg := kp4TaskGuards(n); be || len(mg) > 0 {
			inner := fn
			fn = func(v *kp4CmdVisit) {
				v.bestEffort = v.bestEffort || be
				v.modeGuard = append(v.modeGuard, mg...)
				inner(v)
			}
		}
		// A container (or anything) with command/args sequences: one argv.
		var argv []*yaml.Node
		var argvPath checker.Path
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			if (k.Value == "command" || k.Value == "args") && v.Kind == yaml.SequenceNode {
				if argvPath == nil {
					argvPath = p.Append(k.Value)
				}
				for _, c := range v.Content {
					if c.Kind == yaml.ScalarNode {
						argv = append(argv, c)
					}
				}
			}
		}
		if len(argv) > 0 {
			kp4VisitArgv(d, argv, argvPath, fn)
		}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			kp := append(p, k.Value)
			switch {
			case v.Kind == yaml.ScalarNode && checker.StepScriptKey(k.Value) && checker.IsLoopItem(v.Value):
				// command: "{{ item }}" runs each loop item.
				for j, c := range checker.LoopItems(n) {
					kp4VisitScalarScript(d, c, kp.Append(j), fn)
				}
			case v.Kind == yaml.ScalarNode && checker.StepScriptKey(k.Value):
				kp4VisitScalarScript(d, v, kp.Clone(), fn)
			case v.Kind == yaml.SequenceNode && checker.StepListKey(k.Value):
				for j, c := range v.Content {
					if c.Kind == yaml.ScalarNode {
						kp4VisitScalarScript(d, c, kp.Append(j), fn)
					}
				}
			case v.Kind == yaml.ScalarNode && key == "data" && (strings.HasSuffix(k.Value, ".sh") || strings.HasPrefix(v.Value, "#!")):
				kp4VisitScalarScript(d, v, kp.Clone(), fn)
			case (k.Value == "runcmd" || k.Value == "bootcmd") && v.Kind == yaml.SequenceNode:
				for j, c := range v.Content {
					if c.Kind == yaml.ScalarNode {
						kp4VisitScalarScript(d, c, kp.Append(j), fn)
					}
				}
			case (k.Value == "iptables" || k.Value == "ansible.builtin.iptables") && v.Kind == yaml.MappingNode:
				kp4VisitIptablesModule(d, v, kp.Clone(), fn)
			case v.Kind == yaml.MappingNode || v.Kind == yaml.SequenceNode:
				if (k.Value == "command" || k.Value == "args") && v.Kind == yaml.SequenceNode {
					continue
				}
				kp4WalkCommandNodes(d, v, kp, k.Value, fn)
			}
		}
	case yaml.SequenceNode:
		for i, c := range n.Content {
			kp4WalkCommandNodes(d, c, append(p, strconv.Itoa(i)), key, fn)
		}
	}
}

// kp4VisitScalarScript lexes a scalar holding a shell script.
func kp4VisitScalarScript(d *checker.Document, n *yaml.Node, p checker.Path, fn func(v *kp4CmdVisit)) {
	src := []byte(n.Value)
	s := shell.Parse(src, 0, len(src), shell.Options{})
	kp4VisitScript(s, true, d.Ref(), p, func(w shell.Word, a, b int) (checker.Position, checker.Position) {
		x, y := w.Span(a, b)
		return d.SubPos(n, x, y)
	}, func(h *shell.Heredoc, a, b int) (checker.Position, checker.Position) {
		return d.SubPos(n, h.Offs[min(a, len(h.Offs)-1)], h.Offs[min(b, len(h.Offs)-1)])
	}, fn)
}

// kp4VisitArgv visits a container's command+args: an sh -c script is lexed, else the items are
// the words of one command.
func kp4VisitArgv(d *checker.Document, argv []*yaml.Node, p checker.Path, fn func(v *kp4CmdVisit)) {
	if isShellProgram(argv[0].Value) {
		for j := 1; j+1 < len(argv); j++ {
			if strings.HasPrefix(argv[j].Value, "-") && strings.Contains(argv[j].Value, "c") {
				kp4VisitScalarScript(d, argv[j+1], p, fn)
				return
			}
		}
	}
	c := shell.Command{}
	for i, n := range argv {
		offs := make([]int, len(n.Value)+1)
		for k := range offs {
			offs[k] = k
		}
		// Pos holds the item index; span maps through the item's node.
		c.Words = append(c.Words, shell.Word{Text: n.Value, Pos: i, End: i, Offs: offs})
	}
	s := &shell.Script{Commands: []shell.Command{c}}
	kp4VisitScript(s, true, d.Ref(), p, func(w shell.Word, a, b int) (checker.Position, checker.Position) {
		return d.SubPos(argv[w.Pos], a, b)
	}, nil, fn)
}

// kp4VisitIptablesModule turns an Ansible iptables task (chain: X, jump: Y) into the iptables
// command it runs.
func kp4VisitIptablesModule(d *checker.Document, m *yaml.Node, p checker.Path, fn func(v *kp4CmdVisit)) {
	var nodes []*yaml.Node
	c := shell.Command{Words: []shell.Word{{Text: "iptables", Pos: -1}}}
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := m.Content[i], m.Content[i+1]
		if v.Kind != yaml.ScalarNode {
			continue
		}
		switch k.Value {
		case "chain", "jump", "goto", "match_set":
		default:
			continue
		}
		flag := "--" + strings.ReplaceAll(k.Value, "_", "-")
		offs := make([]int, len(v.Value)+1)
		for j := range offs {
			offs[j] = j
		}
		c.Words = append(c.Words, shell.Word{Text: flag, Pos: -1}, shell.Word{Text: v.Value, Pos: len(nodes), Offs: offs})
		nodes = append(nodes, v)
	}
	if len(nodes) == 0 {
		return
	}
	s := &shell.Script{Commands: []shell.Command{c}}
	kp4VisitScript(s, true, d.Ref(), p, func(w shell.Word, a, b int) (checker.Position, checker.Position) {
		if w.Pos < 0 || w.Pos >= len(nodes) {
			pos, end := d.KindPos()
			return pos, end
		}
		return d.SubPos(nodes[w.Pos], a, b)
	}, nil, fn)
}

// kp4IptablesPrograms read or write iptables rules.
var kp4IptablesPrograms = map[string]bool{
	"iptables": true, "ip6tables": true, "iptables-legacy": true, "iptables-nft": true,
	"ip6tables-legacy": true, "ip6tables-nft": true, "iptables-save": true, "ip6tables-save": true,
	"iptables-restore": true, "ip6tables-restore": true, "iptables-legacy-save": true,
	"iptables-nft-save": true, "ip6tables-legacy-save": true, "ip6tables-nft-save": true,
	"iptables-legacy-restore": true, "iptables-nft-restore": true, "ip6tables-legacy-restore": true,
	"ip6tables-nft-restore": true, "iptables-wrapper": true, "xtables-legacy-multi": true,
	"xtables-nft-multi": true,
}

// kp4TextFilters read other commands' output (iptables-save | grep KUBE-SVC).
var kp4TextFilters = map[string]bool{"grep": true, "egrep": true, "fgrep": true, "rg": true, "awk": true, "sed": true, "cut": true, "wc": true}

// kp4KubeProxyChains are the iptables chains kube-proxy creates in iptables and ipvs mode
// (RULES.md §1); kubelet's KUBE-IPTABLES-HINT, KUBE-KUBELET-CANARY and KUBE-FIREWALL are not
// among them.
var kp4KubeProxyChains = map[string]string{
	"KUBE-SERVICES": "iptables and ipvs", "KUBE-EXTERNAL-SERVICES": "iptables", "KUBE-NODEPORTS": "iptables",
	"KUBE-POSTROUTING": "iptables and ipvs", "KUBE-MARK-MASQ": "iptables and ipvs", "KUBE-FORWARD": "iptables and ipvs",
	"KUBE-PROXY-FIREWALL": "iptables and ipvs", "KUBE-PROXY-CANARY": "iptables", "KUBE-MARK-DROP": "iptables (before 1.25)",
	"KUBE-NODE-PORT": "ipvs", "KUBE-LOAD-BALANCER": "ipvs", "KUBE-IPVS-FILTER": "ipvs",
	"KUBE-IPVS-OUT-FILTER": "ipvs", "KUBE-SOURCE-RANGES-FIREWALL": "ipvs",
}

// kp4KubeProxyChainPrefixes are kube-proxy's per-service chains.
var kp4KubeProxyChainPrefixes = []string{"KUBE-SVC-", "KUBE-SVL-", "KUBE-FW-", "KUBE-EXT-", "KUBE-SEP-", "KUBE-XLB-"}

var kp4KubeTokenRe = regexp.MustCompile(`KUBE-[A-Z0-9][A-Z0-9_-]*|KUBE-`)

// kp4GroupEnd extends a chain token that ends at end over a regular expression group of chain
// name parts right after it ("KUBE-" + "(SVC|SEP)-"), as grep -E patterns write a choice of
// chains; it returns end when no such group follows.
func kp4GroupEnd(s string, end int) int {
	if end >= len(s) || s[end] != '(' {
		return end
	}
	j := end + 1
	for j < len(s) && j-end < 128 && (s[j] == '|' || s[j] == '-' || s[j] == '_' || (s[j] >= 'A' && s[j] <= 'Z') || (s[j] >= '0' && s[j] <= '9')) {
		j++
	}
	if j >= len(s) || s[j] != ')' || j == end+1 || !strings.Contains(s[end:j], "|") {
		return end
	}
	j++
	for j < len(s) && (s[j] == '-' || s[j] == '_' || (s[j] >= 'A' && s[j] <= 'Z') || (s[j] >= '0' && s[j] <= '9')) {
		j++
	}
	return j
}

// kp4ChainModes returns the modes that create chain name, or "". A name with a regular
// expression group (KUBE-(SVC|SEP)-, from grep -E) stands for each alternative: the modes of
// one that ipvs mode also creates if there is one (the claim that holds for the whole
// pattern), else of the first kube-proxy chain among them.
func kp4ChainModes(name string) string {
	if i := strings.IndexByte(name, '('); i >= 0 {
		j := strings.IndexByte(name, ')')
		if j < i {
			return ""
		}
		first := ""
		for _, alt := range strings.Split(name[i+1:j], "|") {
			m := kp4ChainModes(name[:i] + alt + name[j+1:])
			if strings.Contains(m, "ipvs") {
				return m
			}
			if first == "" {
				first = m
			}
		}
		return first
	}
	if m, ok := kp4KubeProxyChains[name]; ok {
		return m
	}
	for _, p := range kp4KubeProxyChainPrefixes {
		if strings.HasPrefix(name, p) {
			if p == "KUBE-XLB-" {
				return "iptables (before 1.24)"
			}
			return "iptables"
		}
	}
	return ""
}

// kp4KubeTokens returns the byte ranges of KUBE-... tokens in s that stand alone: not part of a
// longer name (KUBE-SERVICES-X, MY-KUBE-SERVICES).
func kp4KubeTokens(s string) [][2]int {
	var out [][2]int
	for _, m := range kp4KubeTokenRe.FindAllStringIndex(s, -1) {
		if m[0] > 0 {
			c := s[m[0]-1]
			if c == '-' || c == '_' || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') {
				continue
			}
		}
		m[1] = kp4GroupEnd(s, m[1])
		out = append(out, [2]int{m[0], m[1]})
	}
	return out
}

var kp4ModeCondRe = regexp.MustCompile(`(?i)mode["']?\s*[:=]?\s*["']?(ipvs|iptables)\b`)

// kp4GuardedByMode reports whether a command runs only under a condition on the proxy mode
// being one of modes (`[ "$MODE" = ipvs ]`, `case $mode in ipvs)`, `grep -q 'mode: ipvs'`).
func kp4GuardedByMode(guard []string, modes ...string) bool {
	for i, w := range guard {
		// kp4ModeCondRe needs "mode", whose letters fold to ASCII only: most words are
		// not run through it.
		hasMode := containsFoldASCII(w, "mode")
		for _, m := range modes {
			if (w == m || len(w) == len(m)+2 && w[0] == '"' && w[len(w)-1] == '"' && w[1:len(w)-1] == m) && i > 0 && (guard[i-1] == "=" || guard[i-1] == "==") {
				return true
			}
			if strings.Contains(w, "|") && i > 0 && guard[i-1] == "=" {
				for _, alt := range strings.Split(w, "|") {
					if strings.TrimSpace(alt) == m {
						return true
					}
				}
			}
			if !hasMode {
				continue
			}
			if mm := kp4ModeCondRe.FindStringSubmatch(w); mm != nil && strings.EqualFold(mm[1], m) {
				return true
			}
		}
	}
	return false
}

// containsFoldASCII reports whether s contains lower-case ASCII word sub in any case.
func containsFoldASCII(s, sub string) bool {
	for i := 0; i+len(sub) <= len(s); i++ {
		j := 0
		for j < len(sub) && (s[i+j]|0x20) == sub[j] {
			j++
		}
		if j == len(sub) {
			return true
		}
	}
	return false
}

// kp4InstanceFile returns the file that defines a kube-proxy instance, for scoping.
func kp4InstanceFile(in *checker.Instance) string {
	switch {
	case in.Workload != nil:
		return in.Workload.File.Outer().Path
	case in.Source != nil:
		return in.Source.Path
	case in.Config != nil:
		return in.Config.File.Outer().Path
	}
	return ""
}

// kp4Modes answers "does a kube-proxy of this file's cluster scope run nftables at the
// file's target?" for many files: the instances' scopes are computed once per rule run, their
// modes once per target version, and the answer is cached per file.
type kp4Modes struct {
	p      *checker.Pass
	inst   []kp4ModeInstance
	modes  map[checker.Version][]checker.Setting
	byFile map[string]kp4ModeAnswer
	built  bool
}

type kp4ModeInstance struct {
	in  *checker.Instance
	key string // Workspace.ClusterKey of its file
}

type kp4ModeAnswer struct {
	in   *checker.Instance
	mode checker.Setting
	ok   bool
}

func (k *kp4Modes) build() {
	k.built = true
	k.byFile = map[string]kp4ModeAnswer{}
	k.modes = map[checker.Version][]checker.Setting{}
	for _, in := range k.p.Workspace.Instances {
		f := kp4InstanceFile(in)
		if f == "" {
			continue
		}
		k.inst = append(k.inst, kp4ModeInstance{in: in, key: k.p.Workspace.ClusterKey(f)})
	}
}

// modesAt returns the instances' modes at target v.
func (k *kp4Modes) modesAt(v checker.Version) []checker.Setting {
	ms, ok := k.modes[v]
	if !ok {
		ms = make([]checker.Setting, len(k.inst))
		for i := range k.inst {
			ms[i] = k.inst[i].in.Mode(v)
		}
		k.modes[v] = ms
	}
	return ms
}

// nftables returns a kube-proxy whose effective mode at the file's target is nftables, among
// the instances of the file's cluster (a shared file takes no cluster's evidence).
func (k *kp4Modes) nftables(file string) (*checker.Instance, checker.Setting, bool) {
	return k.running(file, checker.ModeNFTables)
}

// running returns a kube-proxy whose effective mode at the file's target is mode, among the
// instances of the file's cluster (a shared file takes no cluster's evidence).
func (k *kp4Modes) running(file, mode string) (*checker.Instance, checker.Setting, bool) {
	if !k.built {
		k.build()
	}
	ck := file + "\x00" + mode
	if a, ok := k.byFile[ck]; ok {
		return a.in, a.mode, a.ok
	}
	key := k.p.Workspace.ClusterKey(file)
	ms := k.modesAt(k.p.Workspace.TargetOf(file).Version)
	pick := -1
	for i := range k.inst {
		is := &k.inst[i]
		if is.key != key {
			continue
		}
		if ms[i].Origin != checker.OriginUnknown && ms[i].Value == mode {
			pick = i
			break
		}
	}
	a := kp4ModeAnswer{}
	if pick >= 0 {
		a = kp4ModeAnswer{in: k.inst[pick].in, mode: ms[pick], ok: true}
	}
	k.byFile[ck] = a
	return a.in, a.mode, a.ok
}

// kp4ModeRelated returns a related location for the instance whose mode decides a severity.
func kp4ModeRelated(in *checker.Instance, m checker.Setting, t checker.Version) []checker.Related {
	return kp4ModeRelatedIn(in, m, t, checker.ModeNFTables)
}

// kp4ModeRelatedIn returns a related location for the instance that runs in mode.
func kp4ModeRelatedIn(in *checker.Instance, m checker.Setting, t checker.Version, mode string) []checker.Related {
	if in == nil {
		return nil
	}
	pos, end, ok := m.Where()
	if !ok {
		if in.Kind == checker.InstanceCommand && in.Program.IsValid() {
			pos, end, ok = in.Program, in.ProgramEnd, true
		} else if in.Workload != nil {
			pos, end, ok = in.Workload.KeyPos(in.Container.Append("name"))
		}
	}
	if !ok {
		return nil
	}
	return []checker.Related{{Pos: pos, End: end, Message: in.Label + " runs in " + mode + " mode at target " + t.String() + modeSetHere(m)}}
}

// scriptFor returns f's shell commands in dialect d for one of the kp4ForEachCommand callers,
// and what that caller calls once it has visited them. A script that names the words of
// several callers (kp4Needles) is lexed once for them all (checker.File.Memo) and forgotten
// once each has visited it; one that names one caller's is lexed for it alone. The lexings
// were the largest part of what the rules hold (issue 24: about 28 MB of the 44 MB the rules
// added to the heap at 20,000 files); a caller that does not run this time (a rule left out)
// leaves its share held to the run's end, as every lexing was before.
func scriptFor(f *checker.File, d shell.Dialect) (*shell.Script, func()) {
	callers := 0
	for _, n := range kp4Needles {
		if hasNeedle(f.Content, n) {
			callers++
		}
	}
	if callers < 2 {
		return shell.ParseFile(d, f.Content), func() {}
	}
	key := kp4ScriptKey{d}
	sh := f.Memo(key, func() any { return &kp4Script{s: shell.ParseFile(d, f.Content)} }).(*kp4Script)
	return sh.s, func() {
		if int(sh.visits.Add(1)) >= callers {
			f.Forget(func(k any) bool { return k == key })
		}
	}
}

// kp4ScriptKey is the key of a script's lexing shared by the kp4ForEachCommand callers
// (File.Memo); kp4Script the lexing and how many of them visited it.
type (
	kp4ScriptKey struct{ d shell.Dialect }
	kp4Script    struct {
		s      *shell.Script
		visits atomic.Int32
	}
)
