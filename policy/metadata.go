package policy

import (
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/open-policy-agent/opa/v1/ast"

	"github.com/kube-proxy-lint/kube-proxy-lint/checker"
)

// ruleMetadata is what a rule module's package METADATA block says.
type ruleMetadata struct {
	ID, Name string
	Severity checker.Severity
	Disabled bool
	Kinds    []string
	// KubeProxyWorkloads limits the rule, on workload kinds (Pod, DaemonSet, ...), to the
	// documents that run kube-proxy (custom.workloads: kube-proxy): most workloads of a
	// repository are applications, and evaluating the rule on them finds nothing.
	KubeProxyWorkloads bool
	// Modes limits the rule to the documents (and command-line files) with a kube-proxy
	// instance whose effective mode is one of them (custom.modes).
	Modes []string
	// NeedsReplacements limits the rule to workspaces with signs that something replaces
	// kube-proxy (custom.replacements: required).
	NeedsReplacements bool
	Doc               checker.Doc
	URL               string
}

// UserSince is the Since of user policies that do not name one.
const UserSince = "user policy"

// ruleMeta reads the package-scoped METADATA of m. A module without a custom id and without a
// findings rule is a library and yields nil; a module with one but not the other is an error.
func ruleMeta(file string, m *ast.Module, builtin bool) (*ruleMetadata, error) {
	var a *ast.Annotations
	for _, x := range m.Annotations {
		if x.Scope == "package" {
			a = x
			break
		}
	}
	hasFindings := false
	for _, r := range m.Rules {
		if len(r.Head.Ref()) == 1 && r.Head.Ref()[0].Value.Compare(ast.Var("findings")) == 0 {
			hasFindings = true
		}
	}
	return annotationMeta(a, m.Package, hasFindings, builtin)
}

// annotationMeta checks and reads the package-scoped annotations a of the package pkg;
// hasFindings says whether the module defines findings.
func annotationMeta(a *ast.Annotations, pkg *ast.Package, hasFindings, builtin bool) (*ruleMetadata, error) {
	loc := where(pkg.Location)
	if a == nil || a.Custom["id"] == nil {
		if hasFindings {
			return nil, fmt.Errorf("%s: package %s defines findings but has no METADATA block with custom.id (put \"# METADATA\" with title, description and custom: id, name, severity right above the package line)", loc, strings.TrimPrefix(pkg.Path.String(), "data."))
		}
		if builtin {
			return nil, fmt.Errorf("%s: built-in policy without METADATA", loc)
		}
		return nil, nil
	}
	if a.Location != nil {
		loc = where(a.Location)
	}
	str := func(key string) (string, error) {
		v, ok := a.Custom[key]
		if !ok || v == nil {
			return "", nil
		}
		s, ok := v.(string)
		if !ok {
			return "", fmt.Errorf("%s: METADATA custom.%s must be a string, got %v", loc, key, v)
		}
		return s, nil
	}
	var errs []error
	get := func(key string) string {
		s, err := str(key)
		if err != nil {
			errs = append(errs, err)
		}
		return s
	}
	md := &ruleMetadata{
		ID:   get("id"),
		Name: get("name"),
		URL:  get("url"),
		Doc: checker.Doc{
			Title:        strings.TrimSpace(a.Title),
			Why:          strings.TrimSpace(a.Description),
			Remediation:  strings.TrimSpace(get("remediation")),
			Before:       get("before"),
			After:        get("after"),
			Since:        get("since"),
			SeverityText: get("severity_text"),
		},
	}
	if builtin {
		md.URL = ""
	}
	if md.URL != "" && !validDocURL(md.URL) {
		// The URL reaches SARIF helpUri, markdown links and terminals: only a plain absolute
		// web URL is accepted, so no output has to trust it.
		errs = append(errs, fmt.Errorf("%s: METADATA custom.url must be an absolute http or https URL of printable ASCII without spaces, quotes, backslashes or <>", loc))
	}
	sev := get("severity")
	var err error
	if md.Severity, err = checker.ParseSeverity(sev); err != nil || md.Severity == checker.SeverityNone {
		errs = append(errs, fmt.Errorf("%s: METADATA custom.severity must be error, warning or info, got %q", loc, sev))
	}
	switch d := a.Custom["default"].(type) {
	case nil:
	case bool:
		md.Disabled = !d
	case string:
		switch strings.ToLower(d) {
		case "on", "true", "enabled", "yes":
		case "off", "false", "disabled", "no":
			md.Disabled = true
		default:
			errs = append(errs, fmt.Errorf("%s: METADATA custom.default must be on or off, got %q", loc, d))
		}
	default:
		errs = append(errs, fmt.Errorf("%s: METADATA custom.default must be on or off, got %v", loc, d))
	}
	switch k := a.Custom["kinds"].(type) {
	case nil:
	case []any:
		for _, e := range k {
			// "" stands for documents without a kind, such as Helm values files.
			s, ok := e.(string)
			if !ok {
				errs = append(errs, fmt.Errorf("%s: METADATA custom.kinds must list kind names, got %v", loc, e))
				continue
			}
			md.Kinds = append(md.Kinds, s)
		}
	case string:
		md.Kinds = []string{k}
	default:
		errs = append(errs, fmt.Errorf("%s: METADATA custom.kinds must be a list of kinds, got %v", loc, k))
	}
	switch m := a.Custom["modes"].(type) {
	case nil:
	case []any:
		for _, e := range m {
			s, ok := e.(string)
			if !ok || s == "" {
				errs = append(errs, fmt.Errorf("%s: METADATA custom.modes must list kube-proxy modes, got %v", loc, e))
				continue
			}
			md.Modes = append(md.Modes, s)
		}
		if len(m) == 0 {
			errs = append(errs, fmt.Errorf("%s: METADATA custom.modes is empty: the rule would never run", loc))
		}
	case string:
		md.Modes = []string{m}
	default:
		errs = append(errs, fmt.Errorf("%s: METADATA custom.modes must be a list of kube-proxy modes, got %v", loc, m))
	}
	switch r := get("replacements"); r {
	case "", "any":
	case "required":
		md.NeedsReplacements = true
	default:
		errs = append(errs, fmt.Errorf("%s: METADATA custom.replacements must be required or any, got %q", loc, r))
	}
	switch w := get("workloads"); w {
	case "", "all":
	case "kube-proxy":
		md.KubeProxyWorkloads = true
	default:
		errs = append(errs, fmt.Errorf("%s: METADATA custom.workloads must be all or kube-proxy, got %q", loc, w))
	}
	if md.Doc.Since == "" && !builtin {
		md.Doc.Since = UserSince
	}
	switch {
	case md.ID == "":
		errs = append(errs, fmt.Errorf("%s: METADATA custom.id is empty", loc))
	case !checker.ValidID(md.ID):
		errs = append(errs, fmt.Errorf("%s: METADATA custom.id %q must be 2-8 capital letters and 3-4 digits, e.g. ORG001", loc, md.ID))
	}
	if !checker.ValidName(md.Name) {
		errs = append(errs, fmt.Errorf("%s: METADATA custom.name %q must be kebab-case, e.g. no-ipvs-scheduler", loc, md.Name))
	}
	for _, kv := range [][2]string{{"title", md.Doc.Title}, {"description", md.Doc.Why}, {"custom.remediation", md.Doc.Remediation}, {"custom.since", md.Doc.Since}} {
		if kv[1] == "" {
			errs = append(errs, fmt.Errorf("%s: METADATA %s is missing", loc, kv[0]))
		}
	}
	if !hasFindings {
		errs = append(errs, fmt.Errorf("%s: rule %s has no findings rule (findings contains {\"msg\": ..., \"path\": [...]} if ...)", where(pkg.Location), md.ID))
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return md, nil
}

// validDocURL accepts an absolute http(s) URL with a host, made of the characters RFC 3986
// allows (letters, digits, -._~:/?#[]@!$&'()*+,;= and %).
func validDocURL(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		case strings.IndexByte("-._~:/?#[]@!$&'()*+,;=%", c) >= 0:
		default:
			return false
		}
	}
	u, err := url.Parse(s)
	return err == nil && (u.Scheme == "https" || u.Scheme == "http") && u.Host != "" && u.User == nil
}
