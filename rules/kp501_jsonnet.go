package rules

import (
	"bytes"
	"strings"

	"github.com/kube-proxy-lint/kube-proxy-lint/checker"
)

// KP501 on jsonnet sources: grafonnet dashboards and monitoring mixins (kube-prometheus,
// kubernetes-mixin) keep their alerts and panels in .jsonnet and .libsonnet files, which
// the loader keeps as text. Every string literal that mentions a kube-proxy metric is
// scanned as PromQL, except strings that are names, prose or relabel settings.

// kp501JsonnetSkipKeys are fields whose string values are not queries: names, prose,
// and relabel settings (a drop or keep regex is not a use).
var kp501JsonnetSkipKeys = map[string]bool{
	"alert": true, "record": true, "name": true, "title": true, "description": true,
	"summary": true, "message": true, "legendFormat": true, "help": true, "runbook_url": true,
	"uid": true, "datasource": true, "unit": true,
	"regex": true, "sourceLabels": true, "source_labels": true, "targetLabel": true,
	"target_label": true, "replacement": true, "action": true, "separator": true,
}

// kp501Jsonnet reports mode-specific kube-proxy metrics in the string literals of the
// jsonnet files in scope of a kube-proxy.
func kp501Jsonnet(p *checker.Pass, idx *checker.ScopeIndex, modes *modesAt) {
	for _, f := range p.Workspace.Files {
		if f.Format != checker.FormatText || f.Parent != nil || !isJsonnetPath(f.Path) ||
			!bytes.Contains(f.Content, []byte(kubeProxyMetricPrefix)) {
			continue
		}
		p := p.At(f.Path)
		scoped := modes.inScope(p, idx, f.Path)
		if len(scoped) == 0 {
			continue
		}
		for _, s := range jsonnetStrings(f.Content) {
			if kp501JsonnetSkipKeys[s.Key] || !strings.Contains(s.Value, kubeProxyMetricPrefix) {
				continue
			}
			refs := promMetricRefs(s.Value)
			if s.Element && len(refs) == 1 && refs[0].From == 0 && refs[0].To == len(s.Value) {
				// A bare name in an array: a list of metric names (relabel drop lists
				// built with std.join, allow lists), not a query.
				continue
			}
			effect := "the dashboard query shows no data"
			switch {
			case s.Alert != "":
				effect = "alert " + s.Alert + " never fires"
			case s.Record:
				effect = "the recording rule records nothing"
			}
			str, file := s, f
			q := kp501Query{effect: effect, at: func(from, to int) (checker.Position, checker.Position, bool) {
				exact := str.exact(from, to)
				a, b := str.Offs[from], str.Offs[to]
				if exact {
					b = a + (to - from)
				}
				return file.PositionAt(a), file.PositionAt(b), exact
			}}
			for _, ref := range refs {
				if ref.InAbsent {
					continue
				}
				kp501Ref(p, q, ref, refs, scoped)
			}
		}
	}
}
