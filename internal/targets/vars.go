package targets

import (
	"fmt"
	"net/http"
	"strings"

	"golang.org/x/net/http/httpguts"
)

// Session variables. A flow (package flow) compiles its requests with
// CompileNames: a bare word in an action that is no function ({{token}},
// {{loop.index}}) names a variable, which Names resolves to a slot when the
// template is compiled. The values are given when a request is rendered
// (AppendSession; http1.Session.Vars), one string per slot.
//
// A template's own text is checked when it is compiled (see checkURL and
// compileHeader); a variable's value comes from a data file or from an
// answer, so it is checked when it is substituted: VarsUsed says where
// each slot goes and SafeFor whether a value may go there.

// Names resolves a variable's name to its slot, or says why it cannot be
// used there (unknown, not defined yet).
type Names func(name string) (slot int, err error)

// CompileNames parses src into a Template whose bare words name session
// variables, resolved by names.
func CompileNames(src string, names Names) (*Template, error) { return compile(src, names) }

// AppendSession renders t as AppendSeeded does, with the session's
// variable values indexed by slot.
func (t *Template) AppendSession(dst []byte, rng *Rand, seed, seq uint64, part int, vars []string) []byte {
	if t.static {
		return append(dst, t.Text()...)
	}
	rng.Seed(PartSeed(seed, seq, part))
	return t.appendVars(dst, rng, seq, vars)
}

// Slots are the variable slots t uses, in order of use (repeats kept out).
func (t *Template) Slots() []int {
	var out []int
	for _, s := range t.segs {
		if s.op == opVar && !contains(out, s.slot) {
			out = append(out, s.slot)
		}
	}
	return out
}

func contains(xs []int, x int) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// Where a substituted value goes, for SafeFor.
const (
	InURL    = iota // the URL: no control character, space or DEL
	InHeader        // a header value: what net/http allows (no CR, LF, NUL...)
	InBody          // the body: anything (its length is counted)
)

// SafeFor reports whether value may be substituted where says without
// breaking the request apart (a new header line, a second request, a
// request line split by a space), and if not, says why.
func SafeFor(where int, value string) (bool, string) {
	switch where {
	case InURL:
		for i := 0; i < len(value); i++ {
			if c := value[i]; c <= ' ' || c == 0x7f {
				return false, fmt.Sprintf("holds %q, which a URL cannot carry", string(c))
			}
		}
	case InHeader:
		if !httpguts.ValidHeaderFieldValue(value) {
			return false, "holds a control character (CR, LF, NUL...), which a header value cannot carry"
		}
	}
	return true, ""
}

// BuildTarget compiles a flow's request: its method, URL, headers (name
// and value pairs, in order) and body (nil for none), each a template
// whose bare words are session variables resolved by names. Errors say
// which part is wrong.
func BuildTarget(index uint32, method, url string, header [][2]string, body *string, names Names) (*Target, error) {
	method = strings.ToUpper(method)
	if !ValidMethod(method) {
		return nil, fmt.Errorf("method: unknown HTTP method %s", quote(method))
	}
	u, err := CompileNames(url, names)
	if err != nil {
		return nil, fmt.Errorf("url: %v", err)
	}
	if msg := checkURL(u); msg != "" {
		return nil, fmt.Errorf("url: %s", msg)
	}
	t := &Target{Index: index, Method: method, URL: u}
	for _, h := range header {
		hd, err := compileHeaderNames(h[0], h[1], names)
		if err != nil {
			return nil, fmt.Errorf("headers: %v", err)
		}
		t.Header = append(t.Header, hd)
	}
	if body != nil {
		if t.Body, err = CompileNames(*body, names); err != nil {
			return nil, fmt.Errorf("body: %v", err)
		}
	}
	t.finalize()
	return t, nil
}

// HeaderName is the canonical form of a header name.
func HeaderName(name string) string { return http.CanonicalHeaderKey(name) }
