package policy_test

import (
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/open-policy-agent/opa/v1/ast"

	"github.com/kube-proxy-lint/kube-proxy-lint/policy"
)

// TestCapabilitiesPinned fails when the linked OPA offers other builtins than the pinned
// release: review the new ones against the sandbox, then update CapabilitiesVersion.
func TestCapabilitiesPinned(t *testing.T) {
	pinned, err := ast.LoadCapabilitiesVersion(policy.CapabilitiesVersion)
	if err != nil {
		t.Fatal(err)
	}
	names := func(c *ast.Capabilities) string {
		var s []string
		for _, b := range c.Builtins {
			s = append(s, b.Name)
		}
		sort.Strings(s)
		return strings.Join(s, " ")
	}
	if got, want := names(ast.CapabilitiesForThisVersion()), names(pinned); got != want {
		t.Errorf("the linked OPA's builtins differ from %s: review the sandbox and update CapabilitiesVersion", policy.CapabilitiesVersion)
	}
	for _, b := range policy.Capabilities().Builtins {
		if b.Name == "http.send" || b.Name == "opa.runtime" || strings.HasPrefix(b.Name, "net.") || b.Name == "json.verify_schema" || b.Name == "json.match_schema" {
			t.Errorf("sandbox allows %s", b.Name)
		}
	}
	if len(policy.Capabilities().AllowNet) != 0 || policy.Capabilities().AllowNet == nil {
		t.Error("sandbox allows network hosts")
	}
}

// allowedBuiltins is every builtin a policy may call, reviewed one by one: pure functions of
// their arguments. A builtin that touches the network, the environment, files, the clock or a
// random source must not be here. An OPA upgrade that adds builtins fails TestSandboxBuiltins
// until each new one is reviewed and listed here or refused in sandbox.go.
var allowedBuiltins = []string{
	"abs", "all", "and", "any", "array.concat", "array.flatten", "array.reverse", "array.slice",
	"assign", "base64.decode", "base64.encode", "base64.is_valid", "base64url.decode",
	"base64url.encode", "base64url.encode_no_pad", "bits.and", "bits.lsh", "bits.negate",
	"bits.or", "bits.rsh", "bits.xor", "cast_array", "cast_boolean", "cast_null", "cast_object",
	"cast_set", "cast_string", "ceil", "concat", "contains", "count", "crypto.hmac.equal",
	"crypto.hmac.md5", "crypto.hmac.sha1", "crypto.hmac.sha256", "crypto.hmac.sha512",
	"crypto.md5", "crypto.parse_private_keys", "crypto.sha1", "crypto.sha256",
	"crypto.x509.parse_certificate_request", "crypto.x509.parse_certificates",
	"crypto.x509.parse_keypair", "crypto.x509.parse_rsa_private_key", "div", "endswith", "eq",
	"equal", "floor", "format_int", "glob.match", "glob.quote_meta", "graph.reachable",
	"graphql.is_valid", "graphql.parse", "graphql.parse_and_verify",
	"graphql.parse_query", "graphql.parse_schema", "graphql.schema_is_valid", "gt", "gte",
	"hex.decode", "hex.encode", "indexof", "indexof_n", "internal.member_2", "internal.member_3",
	"internal.print", "internal.template_string", "internal.test_case", "intersection",
	"io.jwt.decode", "io.jwt.verify_eddsa", "io.jwt.verify_es256", "io.jwt.verify_es384",
	"io.jwt.verify_es512", "io.jwt.verify_hs256", "io.jwt.verify_hs384", "io.jwt.verify_hs512",
	"io.jwt.verify_ps256", "io.jwt.verify_ps384", "io.jwt.verify_ps512", "io.jwt.verify_rs256",
	"io.jwt.verify_rs384", "io.jwt.verify_rs512", "is_array", "is_boolean", "is_null",
	"is_number", "is_object", "is_set", "is_string", "json.filter", "json.is_valid",
	"json.marshal", "json.marshal_with_options", "json.patch", "json.remove", "json.unmarshal",
	// kube-proxy-lint's own (builtins.go): text.HasPlaceholder of one string, no I/O.
	"kpl.placeholder",
	"lower", "lt", "lte", "max", "min", "minus", "mul", "neq", "numbers.range",
	"numbers.range_step", "object.filter", "object.get", "object.keys", "object.remove",
	"object.subset", "object.union", "object.union_n", "or", "plus", "print", "product",
	"re_match", "regex.find_all_string_submatch_n", "regex.find_n", "regex.globs_match",
	"regex.is_valid", "regex.match", "regex.replace", "regex.split", "regex.template_match",
	"rego.metadata.chain", "rego.metadata.rule", "rego.parse_module", "rem", "replace", "round",
	"semver.compare", "semver.is_valid", "set_diff", "sort", "split", "sprintf", "startswith",
	"strings.any_prefix_match", "strings.any_suffix_match", "strings.count",
	"strings.replace_n", "strings.reverse", "strings.split_n",
	"substring", "sum", "time.add_date", "time.clock", "time.date", "time.diff", "time.format",
	"time.parse_duration_ns", "time.parse_ns", "time.parse_rfc3339_ns", "time.weekday",
	"to_number", "trace", "trim", "trim_left", "trim_prefix", "trim_right", "trim_space",
	"trim_suffix", "type_name", "union", "units.parse", "units.parse_bytes", "upper",
	"uri.is_valid", "uri.parse", "urlquery.decode", "urlquery.decode_object", "urlquery.encode",
	"urlquery.encode_object", "uuid.parse", "walk", "yaml.is_valid", "yaml.marshal",
	"yaml.unmarshal",
}

func TestSandboxBuiltins(t *testing.T) {
	var got []string
	for _, b := range policy.Capabilities().Builtins {
		got = append(got, b.Name)
	}
	sort.Strings(got)
	if strings.Join(got, " ") != strings.Join(allowedBuiltins, " ") {
		have := map[string]bool{}
		for _, n := range got {
			have[n] = true
		}
		for _, n := range allowedBuiltins {
			if !have[n] {
				t.Errorf("allowed builtin %s is missing from the sandbox", n)
			}
			delete(have, n)
		}
		for n := range have {
			t.Errorf("the sandbox allows %s, which is not reviewed: list it in allowedBuiltins or refuse it in sandbox.go", n)
		}
	}
	// Whatever OPA marks nondeterministic (network, clock, randomness, remote schemas) is out.
	for _, b := range ast.CapabilitiesForThisVersion().Builtins {
		if b.Nondeterministic && slices.Contains(got, b.Name) {
			t.Errorf("the sandbox allows nondeterministic builtin %s", b.Name)
		}
	}
	// The builtins that are not OPA's are exactly kube-proxy-lint's own, deterministic, and
	// none replaces an OPA builtin of the same name.
	var own []string
	for _, b := range policy.Capabilities().Builtins {
		if ast.BuiltinMap[b.Name] == nil {
			own = append(own, b.Name)
			if b.Nondeterministic {
				t.Errorf("custom builtin %s is nondeterministic", b.Name)
			}
		}
	}
	if strings.Join(own, " ") != policy.PlaceholderBuiltin {
		t.Errorf("builtins not from OPA = %v, want only %s", own, policy.PlaceholderBuiltin)
	}
}
