package report

import (
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"html/template"
	"io"
	"strconv"
	"strings"
	"sync"

	"github.com/kube-proxy-lint/kube-proxy-lint/checker"
	"github.com/kube-proxy-lint/kube-proxy-lint/checker/readiness"
)

// readinessHTML writes the readiness report as one self-contained HTML page: no network, no
// external assets, a Content-Security-Policy that allows only its own style and script (by
// hash), a timeline matrix of scopes × versions, filters by severity and status, and links to
// the findings (--link-base) or, without a link base, their file:line. Every text from the
// repository is escaped by html/template.
type readinessHTML struct{ linkBase string }

// htmlStyle and htmlScript are the page's only style and script; the CSP names their hashes.
const htmlStyle = `
:root{--fg:#1f2328;--muted:#59636e;--line:#d1d9e0;--bg:#fff;--soft:#f6f8fa;
--runs:#dafbe1;--switches:#fff1c2;--deprecated:#fff8c5;--exits:#ffcecb;--removed:#f0a8a4;--unknown:#eaeef2;--off:#ddf4ff;--replaced:#ddf4ff}
*{box-sizing:border-box}
body{margin:0;font:14px/1.5 system-ui,-apple-system,"Segoe UI",Helvetica,Arial,sans-serif;color:var(--fg);background:var(--bg)}
header,main{max-width:1280px;margin:0 auto;padding:0 24px}
header{padding-top:24px;padding-bottom:8px;border-bottom:1px solid var(--line)}
h1{font-size:24px;margin:0 0 8px}
h2{font-size:20px;margin:32px 0 8px;padding-top:8px;border-top:1px solid var(--line)}
h3{font-size:15px;margin:16px 0 4px}
a{color:#0969da;text-decoration:none}
a:hover{text-decoration:underline}
code,.loc{font:12px/1.4 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}
.muted{color:var(--muted)}
.totals{font-size:15px}
#filters{display:flex;flex-wrap:wrap;gap:4px 16px;margin:12px 0;padding:8px 12px;background:var(--soft);border:1px solid var(--line);border-radius:6px}
#filters fieldset{border:0;margin:0;padding:0;display:flex;gap:12px;flex-wrap:wrap}
#filters legend{font-weight:600;float:left;margin-right:8px}
table{border-collapse:collapse;width:100%;margin:8px 0}
th,td{border:1px solid var(--line);padding:4px 8px;text-align:left;vertical-align:top}
thead th{background:var(--soft)}
.scroll{overflow-x:auto}
.matrix td,.matrix th{white-space:nowrap}
.matrix td.state{text-align:center;padding:4px 6px}
.st-runs{background:var(--runs)}.st-switches{background:var(--switches)}.st-deprecated{background:var(--deprecated)}
.st-exits{background:var(--exits);font-weight:600}.st-removed{background:var(--removed);font-weight:600}
.st-unknown{background:var(--unknown)}.st-off,.st-replaced{background:var(--off)}
.badge{display:inline-block;padding:0 8px;border-radius:10px;font-size:12px;font-weight:600;border:1px solid var(--line)}
.status-blocked .badge.status,.badge.status-blocked{background:var(--exits)}
.badge.status-breaks{background:var(--switches)}.badge.status-ready{background:var(--runs)}
.badge.status-replaced,.badge.status-no-kube-proxy,.badge.status-unknown{background:var(--off)}
.sev{display:inline-block;min-width:64px;font-size:12px;font-weight:600}
.sev-error .sev{color:#cf222e}.sev-warning .sev{color:#9a6700}.sev-info .sev{color:#0969da}
ul.items{list-style:none;padding-left:0;margin:4px 0}
ul.items li{padding:4px 0;border-bottom:1px solid var(--soft)}
.when{display:inline-block;min-width:56px;font-weight:600}
.next{background:var(--soft);border-left:4px solid #0969da;padding:8px 12px;margin:8px 0}
.timeline{display:flex;flex-wrap:wrap;gap:2px}
.timeline span{padding:0 6px;border-radius:4px;font-size:12px}
.hide-sev-error .sev-error,.hide-sev-warning .sev-warning,.hide-sev-info .sev-info,
.hide-st-blocked .status-blocked,.hide-st-breaks .status-breaks,.hide-st-ready .status-ready,
.hide-st-replaced .status-replaced,.hide-st-unknown .status-unknown,.hide-st-no-kube-proxy .status-no-kube-proxy{display:none}
footer{max-width:1280px;margin:32px auto;padding:8px 24px;color:var(--muted);border-top:1px solid var(--line)}
`

const htmlScript = `
(function () {
  "use strict";
  var box = document.getElementById("filters");
  if (!box) { return; }
  box.hidden = false;
  var inputs = box.querySelectorAll("input[type=checkbox]");
  function apply() {
    for (var i = 0; i < inputs.length; i++) {
      document.body.classList.toggle("hide-" + inputs[i].value, !inputs[i].checked);
    }
  }
  for (var i = 0; i < inputs.length; i++) {
    inputs[i].addEventListener("change", apply);
  }
  apply();
})();
`

// cspHash is the CSP source expression of an inline element's exact content.
func cspHash(s string) string {
	h := sha256.Sum256([]byte(s))
	return "'sha256-" + base64.StdEncoding.EncodeToString(h[:]) + "'"
}

// htmlCSP is the page's Content-Security-Policy: nothing but its own style and script.
var htmlCSP = sync.OnceValue(func() string {
	return "default-src 'none'; style-src " + cspHash(htmlStyle) + "; script-src " + cspHash(htmlScript) +
		"; img-src 'none'; base-uri 'none'; form-action 'none'"
})

// readinessTemplate is parsed on first use: most runs write no HTML report, and parsing it
// at startup cost a one-file run a quarter of a millisecond.
var readinessTemplate = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("report").Funcs(template.FuncMap{
		"inc": func(i int) int { return i + 1 },
	}).Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="{{.CSP}}">
<meta name="referrer" content="no-referrer">
<title>kube-proxy migration readiness</title>
<style>` + htmlStyle + `</style>
</head>
<body>
<header>
<h1>kube-proxy migration readiness</h1>
<p class="totals">{{.Totals}}</p>
{{- if .ByVersion}}<p class="muted">Blockers by the version they arrive in: {{.ByVersion}}</p>{{end}}
<div id="filters" hidden>
<fieldset><legend>Findings</legend>
<label><input type="checkbox" value="sev-error" checked> blockers ({{.Count.error}})</label>
<label><input type="checkbox" value="sev-warning" checked> warnings ({{.Count.warning}})</label>
<label><input type="checkbox" value="sev-info" checked> info ({{.Count.info}})</label>
</fieldset>
<fieldset><legend>Scopes</legend>
{{- range .Statuses}}
<label><input type="checkbox" value="st-{{.Status}}" checked> {{.Word}} ({{.Count}})</label>
{{- end}}
</fieldset>
</div>
</header>
<main>
{{- if .Scopes}}
<h2 id="timeline">Timeline</h2>
<div class="scroll"><table class="matrix">
<thead><tr><th scope="col">cluster</th><th scope="col">today</th>{{range .Versions}}<th scope="col">{{.}}</th>{{end}}<th scope="col">status</th></tr></thead>
<tbody>
{{- range $i, $s := .Scopes}}
<tr class="status-{{$s.Status}}"><th scope="row"><a href="#scope-{{inc $i}}">{{$s.Dir}}</a></th><td>{{$s.Today}} at {{$s.Version}}</td>
{{- range $s.Cells}}{{if .State}}<td class="state st-{{.State}}" title="{{.Title}}">{{.Text}}</td>{{else}}<td></td>{{end}}{{end}}<td><span class="badge status-{{$s.Status}}">{{$s.StatusText}}</span></td></tr>
{{- end}}
</tbody>
</table></div>
<p class="muted">States: runs · switches (the default mode changes) · deprecated · exits at startup · removed. (N): blockers that arrive at that version.</p>
{{- else}}
<p>No kube-proxy, replacement or finding in this repository.</p>
{{- end}}
{{- range $i, $s := .Scopes}}
<section class="scope status-{{$s.Status}}" id="scope-{{inc $i}}">
<h2>{{$s.Dir}} <span class="badge status-{{$s.Status}}">{{$s.StatusText}}</span></h2>
<p>{{$s.Headline}}.</p>
<p class="muted">Version {{$s.Version}} {{$s.Source}}{{if $s.SourceAt.Text}} at {{template "loc" $s.SourceAt}}{{end}}.</p>
<p class="next"><strong>Next step:</strong> {{$s.NextStep}}.</p>
{{- range $s.Replaced}}
<p><strong>{{if .Conflicting}}Replaced, but kube-proxy is still deployed:{{else}}Replaced:{{end}}</strong> {{.Message}} ({{template "loc" .At}})</p>
{{- end}}
{{- if $s.Instances}}
<h3>kube-proxy ({{len $s.Instances}})</h3>
<table>
<thead><tr><th scope="col">instance</th><th scope="col">mode today</th><th scope="col">sources</th><th scope="col">timeline</th></tr></thead>
<tbody>
{{- range $s.Instances}}
<tr><td>{{.Label}}</td><td>{{if .Mode}}<strong>{{.Mode}}</strong> ({{.Origin}}){{else}}{{.Origin}}{{end}}{{if .ModeAt.Text}}<br>{{template "loc" .ModeAt}}{{end}}</td>
<td>{{range .Sources}}<div>{{.Role}}: {{template "loc" .At}}</div>{{end}}</td>
<td><div class="timeline">{{range .Cells}}<span class="st-{{.State}}" title="{{.Title}}">{{.Version}} {{.Word}}</span>{{end}}</div></td></tr>
{{- end}}
</tbody>
</table>
{{- end}}
<h3>Node kernels</h3>
<p>{{$s.Nodes}}</p>
{{- if $s.Pools}}
<table><thead><tr><th scope="col">pool</th><th scope="col">ready</th><th scope="col">kernels older than 5.13</th></tr></thead><tbody>
{{- range $s.Pools}}
<tr><td>{{.Name}}</td><td>{{.Ready}} of {{.Total}}</td><td>{{.Old}}{{if .At.Text}} ({{template "loc" .At}}){{end}}</td></tr>
{{- end}}
</tbody></table>
{{- end}}
{{- range $s.Groups}}
<h3>{{.Title}}</h3>
<ul class="items">
{{- range .Items}}
<li class="item sev-{{.Severity}}"><span class="sev">{{.Kind}}</span> <span class="when">{{.When}}</span> {{template "loc" .At}}: {{.Message}} (<a href="{{.URL}}">{{.Rule}}</a>)</li>
{{- end}}
</ul>
{{- end}}
</section>
{{- end}}
</main>
<footer>{{.Tool}}</footer>
<script>` + htmlScript + `</script>
</body>
</html>
{{define "loc"}}{{if .URL}}<a class="loc" href="{{.URL}}">{{.Text}}</a>{{else}}<span class="loc">{{.Text}}</span>{{end}}{{end}}
`))
})

// Views of the model for the template: every value is already the text to show.
type (
	htmlView struct {
		CSP       string
		Totals    string
		ByVersion string
		Count     map[string]int
		Statuses  []htmlStatus
		Versions  []string
		Scopes    []htmlScope
		Tool      string
	}
	htmlStatus struct {
		Status readiness.Status
		Word   string
		Count  int
	}
	htmlScope struct {
		Dir, Status, StatusText, Headline, Version, Source, Today, NextStep, Nodes string
		SourceAt                                                                   htmlLoc
		Cells                                                                      []htmlCell
		Replaced                                                                   []htmlReplaced
		Instances                                                                  []htmlInstance
		Pools                                                                      []htmlPool
		Groups                                                                     []htmlGroup
	}
	htmlCell struct {
		Version, Word, Text, Title string
		State                      checker.State
	}
	htmlLoc struct {
		Text string
		URL  string
	}
	htmlReplaced struct {
		Message     string
		At          htmlLoc
		Conflicting bool
	}
	htmlInstance struct {
		Label, Mode, Origin string
		ModeAt              htmlLoc
		Sources             []htmlSource
		Cells               []htmlCell
	}
	htmlSource struct {
		Role string
		At   htmlLoc
	}
	htmlPool struct {
		Name, Old    string
		Ready, Total int
		At           htmlLoc
	}
	htmlGroup struct {
		Title string
		Items []htmlItem
	}
	htmlItem struct {
		Severity, Kind, When, Message, Rule, URL string
		At                                       htmlLoc
	}
)

// Format writes the page.
func (h readinessHTML) Format(w io.Writer, r *Result) error {
	rd := r.Readiness
	if rd == nil {
		return errNoReadiness
	}
	v := htmlView{CSP: htmlCSP(), Totals: strings.ReplaceAll(strings.TrimSpace(mdTotalsPlain(rd)), "\n", " "), Count: map[string]int{}, Versions: rd.Versions}
	v.Tool = ToolName
	if rd.ToolVersion != "" {
		v.Tool += " " + rd.ToolVersion
	}
	var bs []string
	for _, c := range rd.Totals.BlockersBy {
		bs = append(bs, arrivesWord(c.Version)+": "+strconv.Itoa(c.Count))
	}
	v.ByVersion = strings.Join(bs, " · ")
	for _, sc := range rd.Totals.ByStatus {
		v.Statuses = append(v.Statuses, htmlStatus{Status: sc.Status, Word: statusWord(sc.Status), Count: sc.Count})
	}
	for i := range rd.Scopes {
		v.Scopes = append(v.Scopes, h.scope(&rd.Scopes[i], rd.Versions, v.Count))
	}
	if err := readinessTemplate().Execute(w, v); err != nil {
		return fmt.Errorf("write report: %w", err)
	}
	return nil
}

// mdTotalsPlain is the totals line without markdown emphasis.
func mdTotalsPlain(rd *readiness.Report) string {
	return strings.ReplaceAll(strings.SplitN(mdTotals(rd), "\n\n", 2)[0], "**", "")
}

func (h readinessHTML) loc(l readiness.Location) htmlLoc {
	out := htmlLoc{Text: l.File + ":" + strconv.Itoa(l.Line)}
	if h.linkBase != "" && l.File != "" && l.Line > 0 {
		anchor := "#L" + strconv.Itoa(l.Line)
		if l.EndLine > l.Line {
			anchor += "-L" + strconv.Itoa(l.EndLine)
		}
		out.URL = h.linkBase + escapeURIPath(l.File, false) + anchor
	}
	return out
}

func (h readinessHTML) locp(l *readiness.Location) htmlLoc {
	if l == nil {
		return htmlLoc{}
	}
	return h.loc(*l)
}

func htmlCellOf(c readiness.Cell) htmlCell {
	out := htmlCell{Version: c.Version, Word: string(c.State), State: c.State, Text: string(c.State), Title: c.Why}
	if c.Mode != "" {
		out.Title = c.Mode + ": " + c.Why
		if c.Why == "" {
			out.Title = c.Mode
		}
	}
	if c.Blockers > 0 {
		out.Text += " (" + strconv.Itoa(c.Blockers) + ")"
	}
	return out
}

func (h readinessHTML) scope(s *readiness.Scope, versions []string, count map[string]int) htmlScope {
	out := htmlScope{Dir: s.Dir, Status: string(s.Status), StatusText: statusText(s), Headline: s.Headline,
		Version: s.Target.Version, Source: targetWords(s.Target), SourceAt: h.locp(s.Target.At), NextStep: s.NextStep,
		Today: strings.Join(s.ModeToday, ", ")}
	if out.Today == "" {
		out.Today = "—"
	}
	cells := map[string]readiness.Cell{}
	for _, c := range s.Timeline {
		cells[c.Version] = c
	}
	for _, ver := range versions {
		c, ok := cells[ver]
		if !ok {
			out.Cells = append(out.Cells, htmlCell{Version: ver})
			continue
		}
		out.Cells = append(out.Cells, htmlCellOf(c))
	}
	for _, r := range s.Replaced {
		out.Replaced = append(out.Replaced, htmlReplaced{Message: r.Message, At: h.loc(r.At), Conflicting: r.Conflicting})
	}
	for _, in := range s.Instances {
		hi := htmlInstance{Label: in.Label, Mode: in.Mode, Origin: in.Origin, ModeAt: h.locp(in.ModeAt)}
		if in.Disabled {
			hi.Mode, hi.Origin = "", "not run by the installer"
		}
		for _, src := range in.Sources {
			hi.Sources = append(hi.Sources, htmlSource{Role: src.Role, At: h.loc(src.At)})
		}
		for _, c := range in.Timeline {
			hi.Cells = append(hi.Cells, htmlCellOf(c))
		}
		out.Instances = append(out.Instances, hi)
	}
	if s.Nodes == nil {
		out.Nodes = "Unknown: no node inventory covers this scope (pass --nodes)."
	} else {
		out.Nodes = fmt.Sprintf("%d of %d nodes ready for nftables (Linux %s or newer).", s.Nodes.Ready, s.Nodes.Total, checker.NFTablesMinKernel)
		for _, p := range s.Nodes.Pools {
			out.Pools = append(out.Pools, htmlPool{Name: p.Name, Ready: p.Ready, Total: p.Total, Old: strings.Join(p.OldKernels, ", "), At: h.locp(p.At)})
		}
	}
	for _, g := range s.Groups {
		hg := htmlGroup{Title: g.Title}
		for _, it := range g.Blockers {
			hg.Items = append(hg.Items, htmlItemOf(h, it, "blocker"))
			count["error"]++
		}
		for _, it := range g.Advisories {
			hg.Items = append(hg.Items, htmlItemOf(h, it, it.Severity))
			count[it.Severity]++
		}
		out.Groups = append(out.Groups, hg)
	}
	return out
}

func htmlItemOf(h readinessHTML, it readiness.Item, kind string) htmlItem {
	when := "today"
	if it.Arrives != "" {
		when = "from " + it.Arrives
	}
	url := it.URL
	if url == "" {
		url = "#"
	}
	return htmlItem{Severity: it.Severity, Kind: kind, When: when, Message: it.Message, Rule: it.Rule + " " + it.RuleName, URL: url, At: h.loc(it.At)}
}
