package policy

import (
	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/rego"
	"github.com/open-policy-agent/opa/v1/tester"
	"github.com/open-policy-agent/opa/v1/types"

	"github.com/kube-proxy-lint/kube-proxy-lint/checker/text"
)

// PlaceholderBuiltin is the name of the custom builtin that tells policies whether a value
// holds a template placeholder: kpl.placeholder(x). It is the placeholder contract of the Go
// rules (checker/text.HasPlaceholder), so that a Rego rule never reports a value whose real
// text is only known once a template is rendered or a variable expanded. Its namespace is
// not kube_proxy_lint: `import data.kube_proxy_lint` (the workspace view) would turn
// kube_proxy_lint.placeholder(x) into a call of data.kube_proxy_lint.placeholder, an
// undefined function.
const PlaceholderBuiltin = "kpl.placeholder"

// placeholderDecl declares kpl.placeholder(x): any value in, a boolean out (a
// value that is not a string holds no placeholder), so `not kpl.placeholder(x)`
// never raises a type error on input of an unexpected type. It is deterministic and reads
// nothing but its operand.
var placeholderDecl = &rego.Function{
	Name: PlaceholderBuiltin,
	Decl: types.NewFunction(
		types.Args(types.Named("x", types.A).Description("the value to test, usually a string from input")),
		types.Named("result", types.B).Description("true when x is a string holding a template placeholder (Helm/Jinja2 {{ }}, ${VAR}, $VAR, %VAR%, <VALUE>, Terraform computed values, ...)"),
	),
	Memoize:          false,
	Nondeterministic: false,
}

// placeholder is the implementation of kpl.placeholder: text.HasPlaceholder on a
// string, false on anything else. It allocates nothing and is linear in the string's length.
func placeholder(_ rego.BuiltinContext, x *ast.Term) (*ast.Term, error) {
	s, ok := x.Value.(ast.String)
	return ast.InternedTerm(ok && text.HasPlaceholder(string(s))), nil
}

// customBuiltins are the declarations of kube-proxy-lint's own builtins, added to the
// sandbox's capabilities so that the compiler knows them.
func customBuiltins() []*ast.Builtin {
	return []*ast.Builtin{{
		Name:             placeholderDecl.Name,
		Decl:             placeholderDecl.Decl,
		Nondeterministic: placeholderDecl.Nondeterministic,
	}}
}

// customFunctions are the implementations of customBuiltins, as options of a Rego query.
func customFunctions() []func(*rego.Rego) {
	return []func(*rego.Rego){rego.Function1(placeholderDecl, placeholder)}
}

// customTestBuiltins are customBuiltins for OPA's test runner (kube-proxy-lint test).
func customTestBuiltins() []*tester.Builtin {
	decls := customBuiltins()
	fns := customFunctions()
	out := make([]*tester.Builtin, len(decls))
	for i := range decls {
		out[i] = &tester.Builtin{Decl: decls[i], Func: fns[i]}
	}
	return out
}
