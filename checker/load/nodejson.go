package load

import (
	"encoding/json"
	"strconv"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"

	"github.com/kube-proxy-lint/kube-proxy-lint/checker"
)

// maxNodeJSONDepth bounds the direct encoding; deeper documents take the generic path, which
// reports the depth.
const maxNodeJSONDepth = 1000

// nodeJSON writes the JSON of document node n the way json.Marshal(d.Generic()) would read
// back, without building the generic maps: typed decoding of ~38,000 documents spent more
// on those maps (and on marshalling them) than on decoding. It reports false for what it
// leaves to the generic path: aliases and merge keys (which spend the alias budget), and
// nesting deeper than maxNodeJSONDepth. Keys keep document order and a repeated key is
// written twice; encoding/json keeps the last one, as the generic map does.
func nodeJSON(n *yaml.Node) ([]byte, bool) {
	e := nodeEncoder{buf: make([]byte, 0, 1024)}
	if !e.node(n, 0) {
		return nil, false
	}
	return e.buf, true
}

type nodeEncoder struct{ buf []byte }

// mergeKey reports whether mapping key k is YAML's merge key ("<<" plain, or tagged !!merge),
// which nodeJSON leaves to the generic path (it spends the alias budget).
func mergeKey(k *yaml.Node) bool { return k.Tag == "!!merge" || k.Value == "<<" && k.Style == 0 }

func (e *nodeEncoder) node(n *yaml.Node, depth int) bool {
	if depth > maxNodeJSONDepth {
		return false
	}
	switch n.Kind {
	case yaml.DocumentNode:
		if len(n.Content) == 0 {
			e.buf = append(e.buf, "null"...)
			return true
		}
		return e.node(n.Content[0], depth+1)
	case yaml.AliasNode:
		return false
	case yaml.ScalarNode:
		return e.scalar(n)
	case yaml.MappingNode:
		e.buf = append(e.buf, '{')
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			if mergeKey(k) {
				return false
			}
			if i > 0 {
				e.buf = append(e.buf, ',')
			}
			e.str(k.Value)
			e.buf = append(e.buf, ':')
			if !e.node(v, depth+1) {
				return false
			}
		}
		e.buf = append(e.buf, '}')
		return true
	case yaml.SequenceNode:
		e.buf = append(e.buf, '[')
		for i, c := range n.Content {
			if i > 0 {
				e.buf = append(e.buf, ',')
			}
			if !e.node(c, depth+1) {
				return false
			}
		}
		e.buf = append(e.buf, ']')
		return true
	}
	e.buf = append(e.buf, "null"...)
	return true
}

func (e *nodeEncoder) scalar(n *yaml.Node) bool {
	switch v := checker.GenericScalar(n).(type) {
	case nil:
		e.buf = append(e.buf, "null"...)
	case bool:
		e.buf = strconv.AppendBool(e.buf, v)
	case int64:
		e.buf = strconv.AppendInt(e.buf, v, 10)
	case uint64:
		e.buf = strconv.AppendUint(e.buf, v, 10)
	case string:
		e.str(v)
	default:
		b, err := json.Marshal(v)
		if err != nil {
			return false
		}
		e.buf = append(e.buf, b...)
	}
	return true
}

// str writes s as a JSON string; invalid UTF-8 becomes U+FFFD, as encoding/json writes it.
func (e *nodeEncoder) str(s string) {
	const hex = "0123456789abcdef"
	e.buf = append(e.buf, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\':
				e.buf = append(e.buf, '\\', c)
			case c < 0x20:
				e.buf = append(e.buf, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			default:
				e.buf = append(e.buf, c)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			e.buf = append(e.buf, `\ufffd`...)
		} else {
			e.buf = append(e.buf, s[i:i+size]...)
		}
		i += size
	}
	e.buf = append(e.buf, '"')
}
