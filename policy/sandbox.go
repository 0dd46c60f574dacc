package policy

import (
	"errors"
	"fmt"
	"math/big"
	"strings"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/topdown"
	"github.com/open-policy-agent/opa/v1/topdown/builtins"
)

// forbiddenBuiltins are the builtins refused in the sandbox, with the reason a policy that
// calls one is told. A policy may come from the repository under test: it must not reach the
// network, the environment or the file system, and it must give the same findings on every
// run, so nothing that reads the clock or a random source is allowed either.
// TestSandboxBuiltins lists every allowed builtin, so an OPA upgrade that adds one fails it.
var forbiddenBuiltins = map[string]string{
	"http.send":            "it reaches the network",
	"opa.runtime":          "it exposes the environment and the OPA configuration",
	"json.match_schema":    "a schema $ref can read local files (file://) and URLs",
	"json.verify_schema":   "a schema $ref can read local files (file://) and URLs",
	"time.now_ns":          "it reads the clock, so findings would change from run to run",
	"io.jwt.decode_verify": "it checks expiry against the clock, so findings would change from run to run",
	"crypto.x509.parse_and_verify_certificates":              "it checks validity against the clock",
	"crypto.x509.parse_and_verify_certificates_with_options": "it checks validity against the clock",
	"providers.aws.sign_req":                                 "it signs with the current time",
	"rand.intn":                                              "it is random",
	"uuid.rfc4122":                                           "it is random",
	"io.jwt.encode_sign":                                     "its signatures are random",
	"io.jwt.encode_sign_raw":                                 "its signatures are random",
	// Calls that neither the timeout nor the memory bounds can stop once started.
	"strings.render_template": "it runs Go text/template, which the timeout cannot interrupt and which builds output without bound",
	"graph.reachable_paths":   "it lists every path, exponential in the graph's size, before the timeout can stop it",
}

// forbidden reports whether a builtin is refused in the sandbox, and why.
func forbidden(name string) (string, bool) {
	if strings.HasPrefix(name, "net.") {
		// net.lookup_ip_addr resolves names; the pure CIDR helpers go with it, so that the
		// rule stays "no net.*".
		return "net.* builtins are refused (net.lookup_ip_addr reaches the network)", true
	}
	why, ok := forbiddenBuiltins[name]
	return why, ok
}

// maxRangeLen bounds numbers.range and numbers.range_step: OPA builds the whole array before
// the timeout can stop it, so numbers.range(1, 1e12) would exhaust memory.
const maxRangeLen = 1 << 20

func init() {
	// The sandbox replaces OPA's implementations process-wide; only this package evaluates
	// Rego in kube-proxy-lint.
	topdown.RegisterBuiltinFunc(ast.NumbersRange.Name, boundedRange(ast.NumbersRange.Name, false))
	topdown.RegisterBuiltinFunc(ast.NumbersRangeStep.Name, boundedRange(ast.NumbersRangeStep.Name, true))
}

// boundedRange is numbers.range (or numbers.range_step) that refuses ranges longer than
// maxRangeLen instead of allocating them.
func boundedRange(name string, withStep bool) topdown.BuiltinFunc {
	return func(_ topdown.BuiltinContext, ops []*ast.Term, iter func(*ast.Term) error) error {
		x, err := builtins.BigIntOperand(ops[0].Value, 1)
		if err != nil {
			return err
		}
		y, err := builtins.BigIntOperand(ops[1].Value, 2)
		if err != nil {
			return err
		}
		step := big.NewInt(1)
		if withStep {
			if step, err = builtins.BigIntOperand(ops[2].Value, 3); err != nil {
				return err
			}
			if step.Sign() <= 0 {
				return errors.New(name + ": step must be a positive integer")
			}
		}
		n := new(big.Int).Sub(y, x)
		n.Abs(n).Quo(n, step).Add(n, big.NewInt(1))
		if n.Cmp(big.NewInt(maxRangeLen)) > 0 {
			return fmt.Errorf("%s: the range has %s numbers; the sandbox allows at most %d", name, n, maxRangeLen)
		}
		count := int(n.Int64())
		down := x.Cmp(y) > 0
		terms := make([]*ast.Term, 0, count)
		for i := new(big.Int).Set(x); len(terms) < count; {
			terms = append(terms, ast.NewTerm(builtins.IntToNumber(i)))
			if down {
				i.Sub(i, step)
			} else {
				i.Add(i, step)
			}
		}
		return iter(ast.ArrayTerm(terms...))
	}
}
