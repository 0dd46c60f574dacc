package rules

import (
	"path"
	"regexp"
	"strconv"
	"strings"
)

// The loopback scanner of KP302: it finds host:port pairs whose host is a loopback address
// (127.0.0.0/8, localhost, [::1]) in a string, in one pass, at exact byte offsets. It skips
// what only looks like a connection: listen and bind addresses (a flag or key named *bind*
// or *listen*), publish specs such as docker's 127.0.0.1:30080:80, port ranges, and longer
// host names that merely contain "localhost".

// loopbackRef is one loopback host:port in a string.
type loopbackRef struct {
	// From and To span "host:port".
	From, To int
	Host     string
	Port     int
	IPv6     bool
}

// hostBoundary reports whether c may precede a host name.
func hostBoundary(c byte) bool {
	return (c < 'a' || c > 'z') && (c < 'A' || c > 'Z') && (c < '0' || c > '9') && c != '.' && c != '-' && c != '_'
}

// loopbackHostAt returns the length of a loopback host starting at s[i], and whether it is
// IPv6, or 0.
func loopbackHostAt(s string, i int) (int, bool) {
	switch s[i] {
	case 'l':
		if strings.HasPrefix(s[i:], "localhost") {
			return len("localhost"), false
		}
	case '1':
		if !strings.HasPrefix(s[i:], "127.") {
			return 0, false
		}
		// Three more octets.
		j := i + 4
		for k := 0; k < 3; k++ {
			start := j
			for j < len(s) && j-start < 3 && s[j] >= '0' && s[j] <= '9' {
				j++
			}
			if j == start {
				return 0, false
			}
			if n, _ := strconv.Atoi(s[start:j]); n > 255 {
				return 0, false
			}
			if k < 2 {
				if j >= len(s) || s[j] != '.' {
					return 0, false
				}
				j++
			}
		}
		return j - i, false
	case '[':
		for _, h := range []string{"[::1]", "[0:0:0:0:0:0:0:1]"} {
			if strings.HasPrefix(s[i:], h) {
				return len(h), true
			}
		}
	}
	return 0, false
}

// findLoopbackRefs returns the loopback host:port pairs of s.
func findLoopbackRefs(s string) []loopbackRef {
	var out []loopbackRef
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != 'l' && c != '1' && c != '[' {
			continue
		}
		if i > 0 && c != '[' && !hostBoundary(s[i-1]) {
			continue
		}
		n, v6 := loopbackHostAt(s, i)
		if n == 0 {
			continue
		}
		j := i + n
		if j >= len(s) || s[j] != ':' {
			i = j - 1
			continue
		}
		k := j + 1
		for k < len(s) && k-j-1 < 5 && s[k] >= '0' && s[k] <= '9' {
			k++
		}
		if k == j+1 || (k < len(s) && s[k] >= '0' && s[k] <= '9') {
			i = k - 1
			continue
		}
		// 127.0.0.1:30080:80 publishes a port; 127.0.0.1:30000-32767 is a range.
		if k+1 < len(s) && (s[k] == ':' || s[k] == '-') && s[k+1] >= '0' && s[k+1] <= '9' {
			i = k - 1
			continue
		}
		port, _ := strconv.Atoi(s[j+1 : k])
		if port < 1 || port > 65535 || listenContext(s, i) {
			i = k - 1
			continue
		}
		out = append(out, loopbackRef{From: i, To: k, Host: s[i:j], Port: port, IPv6: v6})
		i = k - 1
	}
	return out
}

// listenContext reports whether the address at s[i] is the value of a flag or key that
// names a listen or bind address ("--metrics-bind-address=", "ListenStream=", "bind = ").
func listenContext(s string, i int) bool {
	// Back over the separators between the name and the value.
	j := i
	for j > 0 {
		c := s[j-1]
		if c == '=' || c == ':' || c == ' ' || c == '\t' || c == '"' || c == '\'' || c == '/' {
			j--
			continue
		}
		break
	}
	if j == i && i > 0 {
		return false
	}
	end := j
	for j > 0 {
		c := s[j-1]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.' {
			j--
			continue
		}
		break
	}
	name := strings.ToLower(s[j:end])
	if strings.Contains(name, "bind") || strings.Contains(name, "listen") {
		return true
	}
	// A URL in a flag's list value: --listen-client-urls=https://10.0.0.1:2379,https://127.0.0.1:2379.
	w := i
	for w > 0 && s[w-1] != ' ' && s[w-1] != '\t' && s[w-1] != '\n' && s[w-1] != '"' && s[w-1] != '\'' {
		w--
	}
	if flag, _, ok := strings.Cut(s[w:i], "="); ok && strings.HasPrefix(flag, "-") {
		flag = strings.ToLower(flag)
		return strings.Contains(flag, "bind") || strings.Contains(flag, "listen")
	}
	return false
}

// textKind says how KP302 reads a text file.
type textKind int

const (
	textOther textKind = iota
	textShell
	textUnit
	textTOML
)

// hostsTOMLRe finds a [host."URL"] table: a containerd registry hosts.toml, whatever the
// file is called.
var hostsTOMLRe = regexp.MustCompile(`(?m)^[ \t]*\[host\.["']`)

// templateSuffixes are stripped before judging a file by its name ("kubelet.service.j2").
var templateSuffixes = []string{".j2", ".jinja", ".jinja2", ".tmpl", ".tpl", ".erb", ".gotmpl", ".template"}

// loopbackTextKind classifies a text file for the loopback scan: shell scripts, systemd
// units and TOML (containerd hosts.toml and config.toml, CRI-O registries.conf) run on or
// configure the node. Dockerfiles (the build container's loopback), Makefiles and other
// files are not scanned.
func loopbackTextKind(name string, content []byte) textKind {
	base := strings.ToLower(path.Base(name))
	for _, s := range templateSuffixes {
		base = strings.TrimSuffix(base, s)
	}
	switch {
	case strings.HasSuffix(base, ".sh") || strings.HasSuffix(base, ".bash") || strings.HasSuffix(base, ".zsh") || strings.HasSuffix(base, ".ksh"):
		return textShell
	case strings.HasSuffix(base, ".service"):
		return textUnit
	case strings.HasSuffix(base, ".conf") && strings.Contains(name, ".service.d/"):
		return textUnit
	case strings.HasSuffix(base, ".toml") || base == "registries.conf" || hostsTOMLRe.Match(content):
		return textTOML
	}
	if len(content) > 2 && content[0] == '#' && content[1] == '!' {
		line := string(content)
		if k := strings.IndexByte(line, '\n'); k >= 0 {
			line = line[:k]
		}
		for _, sh := range []string{"sh", "bash", "zsh", "ksh", "dash", "ash"} {
			if strings.HasSuffix(strings.TrimSpace(line), "/"+sh) || strings.HasSuffix(strings.TrimSpace(line), " "+sh) {
				return textShell
			}
		}
	}
	return textOther
}

// codePart returns the length of line before its comment: "#" at the start or after a
// blank outside quotes for shell and TOML; only a leading "#" or ";" for systemd units,
// which have no trailing comments.
func codePart(line string, kind textKind) int {
	t := strings.TrimLeft(line, " \t")
	if strings.HasPrefix(t, "#") || (kind == textUnit && strings.HasPrefix(t, ";")) {
		return 0
	}
	if kind == textUnit {
		return len(line)
	}
	var quote byte
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case quote != 0:
			if c == '\\' && quote == '"' {
				i++
			} else if c == quote {
				quote = 0
			}
		case c == '"' || c == '\'':
			quote = c
		case c == '#' && (i == 0 || line[i-1] == ' ' || line[i-1] == '\t'):
			return i
		}
	}
	return len(line)
}

// portForwardPorts returns the local ports a "kubectl port-forward" on line opens:
// "8080:80", "30080", ":80" (random) are resource ports after the resource name.
func portForwardPorts(line string) []int {
	k := strings.Index(line, "port-forward")
	if k < 0 {
		return nil
	}
	var out []int
	for _, w := range strings.Fields(line[k+len("port-forward"):]) {
		if strings.ContainsAny(w, "|;&>") {
			break
		}
		local, _, _ := strings.Cut(w, ":")
		if n, err := strconv.Atoi(local); err == nil && n > 0 && n <= 65535 {
			out = append(out, n)
		}
	}
	return out
}
