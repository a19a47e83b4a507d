package targets

import (
	"net/http"
	"strings"
	"testing"

	"github.com/loadlab/loadlab/internal/badinput"
)

// TestInjectionRefused: a quoted text or a rand.choice word holding CR, LF
// or NUL is refused when the target is read, whichever way the header or
// URL came in (-header, an http-format targets file, JSON targets), so no
// rendering can put a second header or a second request on the wire.
func TestInjectionRefused(t *testing.T) {
	payloads := []string{
		`{{"v\r\nInjected: yes\r\nX-B: z"}}`,
		`{{rand.choice ok "ok\r\n\r\nGET /smuggled HTTP/1.1\r\nHost: evil"}}`,
		`a{{"\n"}}b`,
		`{{"\x00"}}`,
		`{{rand.choice a b "c\rd"}}`,
	}
	for i, p := range payloads {
		jp := strings.ReplaceAll(strings.ReplaceAll(p, `\`, `\\`), `"`, `\"`)
		cases := []struct {
			name   string
			format Format
			in     string
			header http.Header
			want   string
		}{
			{"-header", HTTP, "GET http://a/\n", http.Header{"X-A": {p}}, "-header: header X-A: the template can write a control character"},
			{"http header", HTTP, "GET http://a/\nX-A: " + p + "\n", nil, "t.txt:2: header X-A: the template can write a control character"},
			{"json header", JSON, `{"method":"GET","url":"http://a/","header":{"X-A":["` + jp + `"]}}`, nil, "t.txt:1: header X-A: the template can write a control character"},
			{"http url", HTTP, "GET http://a/" + p + "\n", nil, "t.txt:1: bad URL"},
			{"json url", JSON, `{"method":"GET","url":"http://a/` + jp + `"}`, nil, "t.txt:1: bad URL"},
		}
		for _, c := range cases {
			_, err := ReadAll(strings.NewReader(c.in), Options{Format: c.format, File: "t.txt", Header: c.header})
			if err == nil || !badinput.Is(err) || !strings.HasPrefix(err.Error(), c.want) {
				t.Errorf("payload %d via %s: err = %v, want bad input starting %q", i, c.name, err, c.want)
			}
			if err != nil && strings.ContainsAny(err.Error(), "\r\n") {
				t.Errorf("payload %d via %s: message is not one line: %q", i, c.name, err)
			}
		}
	}
}

// TestSafeTemplatesStillAccepted: tabs, spaces and every function stay
// allowed in header values; spaces stay allowed in URLs (net/http escapes
// them).
func TestSafeTemplatesStillAccepted(t *testing.T) {
	in := "GET http://a/{{rand.choice \"x y\" z}}?q={{\"a b\"}}\n" +
		"X-A: {{\"tab\\there\"}} {{rand.choice \"b c\" d}} {{seq}} {{uuid}} {{rand.int -3 3}} {{rand.alnum 4}}\n"
	if _, err := ReadAll(strings.NewReader(in), Options{}); err != nil {
		t.Fatal(err)
	}
}
