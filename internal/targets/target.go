// Package targets reads the requests an attack sends: vegeta's http and
// JSON-lines target formats, with templated URLs, headers and bodies
// compiled once (see Template), handed out round-robin or streamed lazily.
package targets

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"
)

// Target is one compiled request template.
type Target struct {
	Index  uint32    // position in the target list (0-based)
	Method string    // HTTP method
	URL    *Template // request URL
	Header []Header  // request headers, in file order
	Body   *Template // request body, nil when there is none
	File   string    // where the target was read from ("" for stdin)
	Line   int       // 1-based line of the target in File

	url    *url.URL    // parsed URL when it is not templated
	header http.Header // headers when none is templated (Host removed)
	host   string      // Host header value when static
}

// finalize precomputes what static targets need per request.
func (t *Target) finalize() {
	if t.URL.Static() {
		t.url, _ = url.Parse(t.URL.Text())
	}
	h := http.Header{}
	for _, hd := range t.Header {
		if !hd.Value.Static() {
			return
		}
		if hd.Name == "Host" {
			t.host = hd.Value.Text()
			continue
		}
		h[hd.Name] = append(h[hd.Name], hd.Value.Text())
	}
	t.header = h
}

// StaticURL is the parsed URL of a target whose URL has no template
// actions, else nil. It is shared: do not modify it.
func (t *Target) StaticURL() *url.URL { return t.url }

// StaticHeader is the request header of a target none of whose header
// values is templated, else nil. The Host header is not in it (see
// StaticHost). It is shared: do not modify it.
func (t *Target) StaticHeader() http.Header { return t.header }

// StaticHost is the Host header value of a target with StaticHeader, or ""
// when it sets none.
func (t *Target) StaticHost() string { return t.host }

// Header is one request header whose value may be templated.
type Header struct {
	Name  string // canonical header name
	Value *Template
}

// Source is the URL as written (template text for templated URLs); results
// record it so all requests of a templated target group together.
func (t *Target) Source() string { return t.URL.Source() }

// methods are the request methods targets may use.
var methods = map[string]bool{
	"GET": true, "HEAD": true, "POST": true, "PUT": true, "DELETE": true,
	"PATCH": true, "OPTIONS": true, "TRACE": true, "CONNECT": true,
}

// ValidMethod reports whether m is a known HTTP method.
func ValidMethod(m string) bool { return methods[m] }

// checkURL verifies a URL template renders to an absolute http(s) URL,
// rendering it once with a throwaway random source, and that no piece of
// text it can write (a quoted text, a rand.choice word) holds a control
// character, which would split the request line or the Host header
// whatever the rendering.
func checkURL(t *Template) string {
	if bad, found := t.firstBadPiece(urlPiece); found {
		return "bad URL " + quote(t.Source()) + ": the template can write a control character, which would break the request apart: " + strconv.Quote(bad)
	}
	s := string(t.appendVars(nil, NewRand(1), 0, placeholders(t)))
	u, err := url.Parse(s)
	if err != nil {
		return "bad URL: " + strings.TrimPrefix(err.Error(), "parse ")
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return "bad URL " + quote(s) + ": want an absolute http:// or https:// URL"
	}
	if u.Host == "" {
		return "bad URL " + quote(s) + ": no host"
	}
	return ""
}

// urlPiece reports whether s may appear in a URL template's output: no
// control character (CR, LF, NUL...) or DEL, as net/url requires.
func urlPiece(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < ' ' || c == 0x7f {
			return false
		}
	}
	return true
}

// quote quotes s for a message on one line (control characters escaped),
// cut at 80 bytes.
func quote(s string) string {
	if len(s) > 80 {
		return strconv.Quote(s[:77]) + "..."
	}
	return strconv.Quote(s)
}

// placeholders are stand-in values for the variables t uses ("x"), so a
// URL like {{base}}/path is checked as a URL would be with a value.
func placeholders(t *Template) []string {
	n := 0
	for _, s := range t.Slots() {
		n = max(n, s+1)
	}
	if n == 0 {
		return nil
	}
	vs := make([]string, n)
	for i := range vs {
		vs[i] = "x"
	}
	return vs
}
