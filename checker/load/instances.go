package load

import (
	"path"
	"strings"
	"unicode"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"

	"github.com/kube-proxy-lint/kube-proxy-lint/checker"
	"github.com/kube-proxy-lint/kube-proxy-lint/checker/text"
)

// podSpecPaths gives where each workload kind keeps its pod spec.
var podSpecPaths = map[string]checker.Path{
	"Pod":         {"spec"},
	"DaemonSet":   {"spec", "template", "spec"},
	"Deployment":  {"spec", "template", "spec"},
	"StatefulSet": {"spec", "template", "spec"},
	"ReplicaSet":  {"spec", "template", "spec"},
	"Job":         {"spec", "template", "spec"},
	"CronJob":     {"spec", "jobTemplate", "spec", "template", "spec"},
}

// PodSpecPath returns the path of the pod spec in a workload document, or nil.
func PodSpecPath(kind string) checker.Path { return podSpecPaths[kind] }

// boolFlags are kube-proxy flags that take no separate value argument.
var boolFlags = map[string]bool{
	"cleanup": true, "init-only": true, "masquerade-all": true, "profiling": true,
	"help": true, "h": true, "bind-address-hard-fail": true, "ipvs-strict-arp": true,
	"windows-service": true, "alsologtostderr": true, "logtostderr": true,
	"one-output": true, "skip-headers": true, "skip-log-headers": true,
	"add_dir_header": true, "add-dir-header": true, "iptables-localhost-nodeports": true,
}

var shells = map[string]bool{"sh": true, "bash": true, "ash": true, "dash": true, "zsh": true, "busybox": true}

// token is one argv word with its source.
type token struct {
	text string
	doc  *checker.Document
	node *yaml.Node
	path checker.Path
	// from, to are byte offsets of the word inside node.Value; whole is true when the word
	// is the entire scalar (an argv element of its own).
	from, to int
	whole    bool
}

// findInstances finds every kube-proxy in workloads, resolves --config, and adds every
// KubeProxyConfiguration that no workload uses as a standalone instance.
func findInstances(ws *checker.Workspace) []*checker.Instance {
	var out []*checker.Instance
	used := map[*checker.Document]bool{}
	cms := map[string][]*checker.Document{}
	for _, d := range ws.Docs {
		if d.Kind == "ConfigMap" && d.Parent == nil {
			cms[d.Name] = append(cms[d.Name], d)
		}
	}
	for _, d := range ws.Docs {
		spec := podSpecPaths[d.Kind]
		if spec == nil || d.Parent != nil {
			continue
		}
		_, containers := d.Lookup(spec.Append("containers"))
		if containers == nil || containers.Kind != yaml.SequenceNode {
			continue
		}
		windows := d.Str(spec.Append("nodeSelector", "kubernetes.io/os")) == "windows" ||
			d.Str(spec.Append("nodeSelector", "beta.kubernetes.io/os")) == "windows" ||
			d.Str(spec.Append("securityContext", "windowsOptions", "hostProcess")) == "true"
		for i, c := range containers.Content {
			cpath := spec.Append("containers", i)
			argv := containerArgv(d, c, cpath)
			flags, args, exe, ok := kubeProxyFlags(c, argv)
			if !ok {
				continue
			}
			windows := windows || exe || windowsImage(strNode(c, "image")) ||
				lookupStr(c, checker.Path{"securityContext", "windowsOptions", "hostProcess"}) == "true"
			in := &checker.Instance{
				Kind:         checker.InstanceWorkload,
				Label:        workloadLabel(d, c),
				Workload:     d,
				Container:    cpath,
				Windows:      windows,
				Flags:        flags,
				FlagsUnknown: argvOpen(d, c, args, flags),
			}
			resolveConfig(cms, in, spec, c, cpath)
			if in.Config != nil {
				used[in.Config] = true
			}
			out = append(out, in)
		}
	}
	for _, d := range ws.Docs {
		if d.Kind == "KubeProxyConfiguration" && !used[d] {
			label := "KubeProxyConfiguration in " + d.File.Outer().Path
			if d.Parent != nil {
				ref := d.Parent.Ref().String()
				if ref == "" {
					// A document without kind or name (cloud-init, Ansible variables).
					ref = d.File.Outer().Path
				}
				label = "KubeProxyConfiguration in " + ref + " key " + d.ParentPath[len(d.ParentPath)-1]
			}
			out = append(out, &checker.Instance{Kind: checker.InstanceConfig, Label: label, Config: d, Windows: checker.IsWindowsConfig(d)})
		}
	}
	return out
}

func workloadLabel(d *checker.Document, c *yaml.Node) string {
	s := d.Ref().String()
	if _, n := checker.LookupNode(c, checker.Path{"name"}); n != nil {
		s += ", container " + n.Value
	}
	return s
}

// containerArgv returns the container's command followed by its args.
func containerArgv(d *checker.Document, c *yaml.Node, cpath checker.Path) []token {
	var argv []token
	for _, field := range []string{"command", "args"} {
		_, seq := checker.LookupNode(c, checker.Path{field})
		if seq == nil || seq.Kind != yaml.SequenceNode {
			continue
		}
		for i, n := range seq.Content {
			if n.Kind != yaml.ScalarNode {
				continue
			}
			argv = append(argv, token{text: n.Value, doc: d, node: n, path: cpath.Append(field, i), from: 0, to: len(n.Value), whole: true})
		}
	}
	return argv
}

func isKubeProxyBinary(s string) bool {
	b := path.Base(strings.ReplaceAll(s, `\`, "/"))
	return b == "kube-proxy" || b == "kube-proxy.exe"
}

// kubeProxyFlags finds the kube-proxy command line of a container: argv whose program is
// kube-proxy, a shell -c script with a command that runs kube-proxy, or args alone for a
// kube-proxy image. It also reports whether the program is the Windows binary.
func kubeProxyFlags(c *yaml.Node, argv []token) (flags []checker.Flag, args []token, windows, ok bool) {
	if len(argv) > 0 {
		i := skipPrefixWords(argv)
		if i < len(argv) && isKubeProxyBinary(argv[i].text) {
			return parseFlags(argv[i+1:]), argv[i+1:], strings.HasSuffix(argv[i].text, ".exe"), true
		}
		if shells[path.Base(argv[0].text)] {
			for j := 1; j < len(argv); j++ {
				if argv[j].text == "-c" && j+1 < len(argv) {
					for _, cmd := range shellCommands(argv[j+1]) {
						k := skipPrefixWords(cmd)
						if k < len(cmd) && isKubeProxyBinary(cmd[k].text) {
							return parseFlags(cmd[k+1:]), cmd[k+1:], strings.HasSuffix(cmd[k].text, ".exe"), true
						}
					}
					break
				}
			}
		}
	}
	_, cmd := checker.LookupNode(c, checker.Path{"command"})
	_, img := checker.LookupNode(c, checker.Path{"image"})
	if cmd == nil && img != nil && strings.Contains(imageName(img.Value), "kube-proxy") {
		return parseFlags(argv), argv, false, true
	}
	return nil, nil, false, false
}

// skipPrefixWords returns the index of the program in a command: it skips exec, env and
// similar wrappers, and VAR=value assignments.
func skipPrefixWords(words []token) int {
	i := 0
	for i < len(words) {
		w := words[i].text
		switch path.Base(w) {
		case "exec", "env", "nohup", "nice", "sudo", "command", "time", "chroot", "setsid", "tini", "dumb-init":
			i++
			continue
		}
		if strings.HasPrefix(w, "--") && i > 0 {
			// An option of a wrapper such as "tini --" or "env -i".
			i++
			continue
		}
		if k, _, ok := strings.Cut(w, "="); ok && k != "" && !strings.HasPrefix(w, "-") {
			i++
			continue
		}
		break
	}
	return i
}

// imageName strips registry, tag and digest: "registry.k8s.io/kube-proxy:v1.30.0" -> "kube-proxy".
func imageName(img string) string {
	if i := strings.IndexByte(img, '@'); i >= 0 {
		img = img[:i]
	}
	base := path.Base(img)
	if i := strings.IndexByte(base, ':'); i >= 0 {
		base = base[:i]
	}
	return base
}

// imageTag returns the tag of an image reference, or "".
func imageTag(img string) string {
	if i := strings.IndexByte(img, '@'); i >= 0 {
		img = img[:i]
	}
	base := path.Base(img)
	if i := strings.IndexByte(base, ':'); i >= 0 {
		return base[i+1:]
	}
	return ""
}

// shellCommands splits a shell script into commands and each command into words, keeping
// each word's byte range. It understands quotes, comments and backslash-newline
// continuations; newlines, ";", "&" and "|" separate commands.
func shellCommands(t token) [][]token {
	s := t.text
	var cmds [][]token
	var words []token
	flush := func() {
		if len(words) > 0 {
			cmds = append(cmds, words)
			words = nil
		}
	}
	i := 0
	for i < len(s) {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\r':
			i++
			continue
		case c == '\\' && i+1 < len(s) && s[i+1] == '\n':
			i += 2
			continue
		case c == '\n' || c == ';' || c == '&' || c == '|' || c == '(' || c == ')':
			flush()
			i++
			continue
		case c == '#' && (i == 0 || s[i-1] == ' ' || s[i-1] == '\n' || s[i-1] == '\t'):
			for i < len(s) && s[i] != '\n' {
				i++
			}
			continue
		}
		start := i
		var b strings.Builder
		for i < len(s) {
			c := s[i]
			if c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == ';' || c == '&' || c == '|' {
				break
			}
			switch c {
			case '\'':
				j := strings.IndexByte(s[i+1:], '\'')
				if j < 0 {
					b.WriteString(s[i+1:])
					i = len(s)
					continue
				}
				b.WriteString(s[i+1 : i+1+j])
				i += j + 2
			case '"':
				i++
				for i < len(s) && s[i] != '"' {
					if s[i] == '\\' && i+1 < len(s) {
						i++
					}
					b.WriteByte(s[i])
					i++
				}
				i++
			case '\\':
				if i+1 < len(s) && s[i+1] != '\n' {
					b.WriteByte(s[i+1])
				}
				i += 2
			default:
				b.WriteByte(c)
				i++
			}
		}
		if i > len(s) {
			i = len(s)
		}
		words = append(words, token{text: b.String(), doc: t.doc, node: t.node, path: t.path, from: t.from + start, to: t.from + i})
	}
	flush()
	return cmds
}

// parseFlags parses kube-proxy flags: --name=value, --name value, -v=2.
func parseFlags(argv []token) []checker.Flag {
	var flags []checker.Flag
	for i := 0; i < len(argv); i++ {
		t := argv[i]
		if !strings.HasPrefix(t.text, "-") || t.text == "-" || t.text == "--" {
			continue
		}
		name := strings.TrimLeft(t.text, "-")
		f := checker.Flag{Doc: t.doc, Node: t.node, NodePath: t.path}
		last := t
		if k, v, ok := strings.Cut(name, "="); ok {
			f.Name, f.Value, f.HasValue = k, v, true
			vf := t.from + strings.IndexByte(t.text, '=') + 1
			f.ValuePos, f.ValueEnd = t.doc.SubPos(t.node, vf, t.to)
			setValueSpan(&f, t.node, vf, t.to)
		} else {
			f.Name = name
			if !boolFlags[name] && i+1 < len(argv) && (!strings.HasPrefix(argv[i+1].text, "-") || isNegativeNumber(argv[i+1].text)) {
				v := argv[i+1]
				f.Value, f.HasValue = v.text, true
				f.ValuePos, f.ValueEnd = v.doc.SubPos(v.node, v.from, v.to)
				setValueSpan(&f, v.node, v.from, v.to)
				last = v
				i++
			}
		}
		f.Pos, _ = t.doc.SubPos(t.node, t.from, t.to)
		_, f.End = last.doc.SubPos(last.node, last.from, last.to)
		if !f.HasValue {
			f.ValuePos, f.ValueEnd = f.Pos, f.End
		}
		f.Remove = removeEdits(t, last)
		flags = append(flags, f)
	}
	return flags
}

// removeEdits deletes the words first..last: whole sequence items (with their lines when
// the items stand alone on them) or the words inside a script with the blank before them.
func removeEdits(first, last token) []checker.TextEdit {
	if first.whole {
		if !last.whole {
			last = first
		}
		return removeSeqItems(first, last)
	}
	f := first.doc.File
	m := f.ScalarMap(first.node)
	from, to := first.from, last.to
	if m == nil || last.node != first.node || to > len(first.node.Value) {
		return nil
	}
	v := first.node.Value
	// A flag alone on a continued script line ("    --flag=x \\"): delete the whole line.
	// Only the blanks around the flag are read, not the whole line.
	if ls, ok := blankBackTo(v, from); ok && ls > 0 {
		if le, ok := continuationAfter(v, to); ok {
			start := m.Map(ls-1) + 1 // just after the previous line break in the source
			if f.Content[m.Map(ls-1)] == '\r' {
				start++
			}
			end := m.Map(le) + 1
			if f.Content[m.Map(le)] == '\r' {
				end++
			}
			return []checker.TextEdit{{Pos: f.PositionAt(start), End: f.PositionAt(end)}}
		}
	}
	// Take the blanks before the flag so no double space remains.
	for from > 0 && (v[from-1] == ' ' || v[from-1] == '\t') {
		from--
	}
	return []checker.TextEdit{{Pos: f.PositionAt(m.Map(from)), End: f.PositionAt(m.Map(to))}}
}

// blankBackTo reports whether only white space stands between the last line break before
// from and from, and returns the offset after that break (0 when there is none).
func blankBackTo(v string, from int) (int, bool) {
	for i := from; i > 0; {
		r, size := utf8.DecodeLastRuneInString(v[:i])
		if r == '\n' {
			return i, true
		}
		if !unicode.IsSpace(r) {
			return 0, false
		}
		i -= size
	}
	return 0, true
}

// continuationAfter reports whether a lone "\\" (blanks around it) ends the line after to,
// and returns the offset of that line's break.
func continuationAfter(v string, to int) (int, bool) {
	seen := false
	for i := to; i < len(v); {
		r, size := utf8.DecodeRuneInString(v[i:])
		switch {
		case r == '\n':
			return i, seen
		case r == '\\' && !seen:
			seen = true
		case !unicode.IsSpace(r):
			return 0, false
		}
		i += size
	}
	return 0, false
}

// removeSeqItems deletes the adjacent sequence items first..last: their lines in block
// style, the items and one comma in flow style.
func removeSeqItems(first, last token) []checker.TextEdit {
	f := first.doc.File
	start := f.Lines.Offset(first.node.Line, first.node.Column)
	end := first.doc.NodeEnd(last.node).Offset
	if trimmed := strings.TrimSpace(string(f.Content[f.Lines.LineStart(first.node.Line):start])); trimmed == "-" {
		// Block items: delete whole lines when nothing else follows on the last one.
		var edits []checker.TextEdit
		for _, t := range []token{first, last} {
			if len(edits) > 0 && t.node == first.node {
				break
			}
			if t.node.Style&(yaml.LiteralStyle|yaml.FoldedStyle) != 0 || strings.Contains(t.node.Value, "\n") {
				return nil // a multi-line item: no safe line deletion
			}
			ls := f.Lines.LineStart(t.node.Line)
			le := f.Lines.LineStart(t.node.Line + 1)
			e := first.doc.NodeEnd(t.node).Offset
			rest := strings.TrimSpace(string(f.Content[min(e, le):le]))
			if rest != "" && !strings.HasPrefix(rest, "#") {
				return nil
			}
			edits = append(edits, checker.TextEdit{Pos: f.PositionAt(ls), End: f.PositionAt(le)})
		}
		return edits
	}
	// Flow items: take the preceding comma and blanks, so that removing neighbours never
	// overlaps; the first item takes the following ones instead.
	k := start
	for k > 0 && (f.Content[k-1] == ' ' || f.Content[k-1] == '\t') {
		k--
	}
	if k > 0 && f.Content[k-1] == ',' {
		return []checker.TextEdit{{Pos: f.PositionAt(k - 1), End: f.PositionAt(end)}}
	}
	j := end
	for j < len(f.Content) && (f.Content[j] == ' ' || f.Content[j] == '\t') {
		j++
	}
	if j < len(f.Content) && f.Content[j] == ',' {
		j++
		for j < len(f.Content) && (f.Content[j] == ' ' || f.Content[j] == '\t') {
			j++
		}
	} else {
		j = end
	}
	return []checker.TextEdit{{Pos: f.PositionAt(start), End: f.PositionAt(j)}}
}

// resolveConfig follows --config through the container's volumeMounts and the pod's volumes
// to a ConfigMap key holding a KubeProxyConfiguration in the workspace.
func resolveConfig(cms map[string][]*checker.Document, in *checker.Instance, spec checker.Path, c *yaml.Node, cpath checker.Path) {
	cf := in.Flag("config")
	if cf == nil {
		return
	}
	d := in.Workload
	p := path.Clean(cf.Value)
	_, mounts := checker.LookupNode(c, checker.Path{"volumeMounts"})
	if mounts == nil || mounts.Kind != yaml.SequenceNode {
		in.ConfigUnresolved = "no volumeMount holds " + cf.Value
		return
	}
	var volName, key string
	var mountIdx = -1
	best := -1
	for i, m := range mounts.Content {
		mp := path.Clean(strNode(m, "mountPath"))
		sub := strNode(m, "subPath")
		var k string
		switch {
		case sub != "" && p == mp:
			k = sub
		case sub == "" && strings.HasPrefix(p, mp+"/"):
			k = strings.TrimPrefix(p, mp+"/")
		case mp == "/" && sub == "":
			k = strings.TrimPrefix(p, "/")
		default:
			continue
		}
		if len(mp) > best {
			best, volName, key, mountIdx = len(mp), strNode(m, "name"), k, i
		}
	}
	if mountIdx < 0 {
		in.ConfigUnresolved = "no volumeMount holds " + cf.Value
		return
	}
	mountPath := cpath.Append("volumeMounts", mountIdx)
	addVia(in, d, mountPath, "--config "+cf.Value+" is mounted here")
	_, vols := d.Lookup(spec.Append("volumes"))
	if vols == nil || vols.Kind != yaml.SequenceNode {
		in.ConfigUnresolved = "volume " + volName + " is not defined"
		return
	}
	for i, v := range vols.Content {
		if strNode(v, "name") != volName {
			continue
		}
		vpath := spec.Append("volumes", i)
		_, cmNode := checker.LookupNode(v, checker.Path{"configMap"})
		if cmNode == nil {
			in.ConfigUnresolved = "volume " + volName + " is not a ConfigMap volume"
			return
		}
		cmName := strNode(cmNode, "name")
		// items map keys to paths.
		if _, items := checker.LookupNode(cmNode, checker.Path{"items"}); items != nil && items.Kind == yaml.SequenceNode {
			found := false
			for _, it := range items.Content {
				if path.Clean(strNode(it, "path")) == key {
					key, found = strNode(it, "key"), true
					break
				}
			}
			if !found {
				in.ConfigUnresolved = "volume " + volName + " does not project " + key
				return
			}
		}
		addVia(in, d, vpath, "volume "+volName+" is ConfigMap "+cmName)
		cm := findConfigMap(cms[cmName], d.Namespace, d.File.Path)
		if cm == nil {
			in.ConfigUnresolved = "ConfigMap " + cmName + " is not in the linted files"
			return
		}
		for _, e := range cm.Embedded {
			if e.ParentPath[len(e.ParentPath)-1] == key && e.Kind == "KubeProxyConfiguration" {
				in.Config = e
				pos, end, _ := cm.KeyPos(checker.Path{"data", key})
				in.ConfigVia = append(in.ConfigVia, checker.Related{Pos: pos, End: end, Message: "ConfigMap " + cmName + " key " + key + " holds the configuration"})
				return
			}
		}
		in.ConfigUnresolved = "ConfigMap " + cmName + " has no KubeProxyConfiguration under key " + key
		return
	}
	in.ConfigUnresolved = "volume " + volName + " is not defined"
}

func addVia(in *checker.Instance, d *checker.Document, p checker.Path, msg string) {
	if pos, end, ok := d.KeyPos(p); ok {
		in.ConfigVia = append(in.ConfigVia, checker.Related{Pos: pos, End: end, Message: msg})
	}
}

// findConfigMap picks among the ConfigMaps of one name the one in namespace ns (else one
// without a namespace) that is closest in the directory tree to the workload's file, so that
// each cluster directory of a monorepo resolves to its own ConfigMap.
func findConfigMap(cands []*checker.Document, ns, file string) *checker.Document {
	var best *checker.Document
	bestNS, bestDepth := 3, -1
	for _, c := range cands {
		r := rankNS(c.Namespace, ns)
		if r > 1 {
			continue
		}
		depth := commonDirDepth(c.File.Path, file)
		if r < bestNS || (r == bestNS && depth > bestDepth) {
			best, bestNS, bestDepth = c, r, depth
		}
	}
	return best
}

// commonDirDepth counts the leading directories two slash paths share.
func commonDirDepth(a, b string) int {
	as := strings.Split(path.Dir(a), "/")
	bs := strings.Split(path.Dir(b), "/")
	n := 0
	for n < len(as) && n < len(bs) && as[n] == bs[n] {
		n++
	}
	return n
}

func rankNS(have, want string) int {
	switch {
	case have == want:
		return 0
	case have == "" || want == "":
		return 1
	}
	return 2
}

func strNode(n *yaml.Node, key string) string {
	_, v := checker.LookupNode(n, checker.Path{key})
	if v == nil || v.Kind != yaml.ScalarNode {
		return ""
	}
	return v.Value
}

// argvOpen reports whether a container's command line may carry flags that do not show: an
// argument that is a placeholder and not a flag's value ("{{ . }}" of a range over extra
// args, "$(EXTRA_ARGS)"), or an output placeholder alone on its line inside the container
// ("{{ toYaml .Values.extraArgs | nindent 8 }}").
func argvOpen(d *checker.Document, c *yaml.Node, args []token, flags []checker.Flag) bool {
	// Words that are a flag's separate value ("--proxy-mode {{ .Values.mode }}").
	type span struct {
		n        *yaml.Node
		from, to int
	}
	values := map[span]bool{}
	for _, f := range flags {
		if f.ValueNode != nil && f.HasValue {
			values[span{f.ValueNode, f.ValueFrom, f.ValueTo}] = true
		}
	}
	for _, t := range args {
		if strings.HasPrefix(t.text, "-") || !text.HasPlaceholder(t.text) {
			continue
		}
		if values[span{t.node, t.from, t.to}] || values[span{t.node, t.from + 1, t.to - 1}] {
			continue
		}
		return true
	}
	if !d.Open {
		return false
	}
	from, to := c.Line, docLastLine(c)+1
	for _, o := range d.File.Outer().Open {
		if o.Line >= from && o.Line <= to && o.Indent >= c.Column-1 {
			return true
		}
	}
	return false
}

// lookupStr returns the scalar at p below n, or "".
func lookupStr(n *yaml.Node, p checker.Path) string {
	if _, v := checker.LookupNode(n, p); v != nil && v.Kind == yaml.ScalarNode {
		return v.Value
	}
	return ""
}

// windowsImage reports whether an image reference names a Windows build
// (sigwindowstools/kube-proxy:v1.33.0-calico-hostprocess, ...-windowsservercore-ltsc2022).
func windowsImage(img string) bool {
	img = strings.ToLower(img)
	return strings.Contains(img, "windows") || strings.Contains(img, "hostprocess") || strings.Contains(img, "nanoserver") || strings.Contains(img, "ltsc20")
}

// isNegativeNumber reports whether s is a value like "-999" rather than a flag.
func isNegativeNumber(s string) bool {
	if len(s) < 2 || s[0] != '-' {
		return false
	}
	for _, c := range s[1:] {
		if (c < '0' || c > '9') && c != '.' {
			return false
		}
	}
	return true
}

// setValueSpan records where a flag's value sits in its scalar, without surrounding quotes.
func setValueSpan(f *checker.Flag, n *yaml.Node, from, to int) {
	if n == nil || from < 0 || to > len(n.Value) || from > to {
		return
	}
	if to-from >= 2 && (n.Value[from] == '"' || n.Value[from] == '\'') && n.Value[to-1] == n.Value[from] {
		from, to = from+1, to-1
	}
	f.ValueNode, f.ValueFrom, f.ValueTo = n, from, to
}
