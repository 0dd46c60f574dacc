package checker

import (
	"strings"

	"github.com/kube-proxy-lint/kube-proxy-lint/checker/text"
)

// EditTouchesPlaceholder reports whether edit e of content (whose template placeholders are
// spans, from TemplateSpans) changes, deletes or copies a placeholder, and the byte offset of
// the placeholder. A placeholder's value is unknown until the template is rendered or the
// variable expanded: a fix never touches one (Pass.Report drops such fixes, and the fixer
// refuses them). The edit must lie within content. Whole comment lines that are deleted are
// not values; template tags inside them still count (Helm renders them).
func EditTouchesPlaceholder(content []byte, spans []text.TemplateSpan, e TextEdit) (int, bool) {
	from, to := e.Pos.Offset, e.End.Offset
	for _, s := range spans {
		if from < s.To && s.From < to || from == to && s.From < from && from < s.To {
			return s.From, true
		}
	}
	off := from
	for _, line := range strings.SplitAfter(string(content[from:to]), "\n") {
		t := strings.TrimSpace(line)
		if !strings.HasPrefix(t, "#") && text.HasPlaceholder(line) {
			return off, true
		}
		off += len(line)
	}
	if text.HasPlaceholder(e.NewText) {
		return from, true
	}
	return 0, false
}
