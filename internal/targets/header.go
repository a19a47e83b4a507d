package targets

import (
	"fmt"
	"net/http"

	"golang.org/x/net/http/httpguts"
)

// compileHeader checks a header as net/http does before sending one (a
// token for the name; no CR, LF, NUL or other control character but tab in
// the value) and compiles the value's template. The check is made on the
// value as written and again on every piece of text the compiled template
// can write (quoted texts like {{"a\r\nb"}} and rand.choice words are
// unquoted when compiled): template functions only insert letters, digits,
// hex and UUIDs, so every rendered value is valid by construction, on
// every client.
func compileHeader(name, value string) (Header, error) { return compileHeaderNames(name, value, nil) }

// compileHeaderNames is compileHeader with session variables (see
// CompileNames).
func compileHeaderNames(name, value string, names Names) (Header, error) {
	if !httpguts.ValidHeaderFieldName(name) {
		return Header{}, fmt.Errorf("header name %q is not a valid HTTP token (no spaces, colons or control characters)", name)
	}
	if !httpguts.ValidHeaderFieldValue(value) {
		return Header{}, fmt.Errorf("header %s: the value holds a control character (CR, LF, NUL...), which would break the request apart: %q", name, value)
	}
	v, err := compile(value, names)
	if err != nil {
		return Header{}, fmt.Errorf("header %s: %v", name, err)
	}
	if bad, found := v.firstBadPiece(httpguts.ValidHeaderFieldValue); found {
		return Header{}, fmt.Errorf("header %s: the template can write a control character (CR, LF, NUL...), which would break the request apart: %q", name, bad)
	}
	return Header{Name: http.CanonicalHeaderKey(name), Value: v}, nil
}

// CheckHeader checks a header as the attack checks -header (and every
// header given with the targets): a valid name, a value with no control
// character, a template that compiles and can write none.
func CheckHeader(name, value string) error {
	_, err := compileHeader(name, value)
	return err
}
