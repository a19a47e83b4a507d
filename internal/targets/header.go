package targets

import (
	"fmt"
	"net/http"

	"golang.org/x/net/http/httpguts"
)

// compileHeader checks a header as net/http does before sending one (a
// token for the name; no CR, LF, NUL or other control character but tab in
// the value) and compiles the value's template. Rendered values stay valid:
// template functions only insert letters, digits, hex, UUIDs and the
// choices written in the value itself.
func compileHeader(name, value string) (Header, error) {
	if !httpguts.ValidHeaderFieldName(name) {
		return Header{}, fmt.Errorf("header name %q is not a valid HTTP token (no spaces, colons or control characters)", name)
	}
	if !httpguts.ValidHeaderFieldValue(value) {
		return Header{}, fmt.Errorf("header %s: the value holds a control character (CR, LF, NUL...), which would break the request apart: %q", name, value)
	}
	v, err := Compile(value)
	if err != nil {
		return Header{}, fmt.Errorf("header %s: %v", name, err)
	}
	return Header{Name: http.CanonicalHeaderKey(name), Value: v}, nil
}
