package httpsyntax

import (
	"bufio"
	"bytes"
	"net/http"
	"net/url"
	"reflect"
	"testing"
)

// AppendRequest must send what req.Write sends for a request without a
// body: the same request line, Host and headers once both are parsed.
func TestAppendRequestMatchesRequestWrite(t *testing.T) {
	mk := func(method, target string, h http.Header, close bool) *http.Request {
		u, err := url.Parse("http://127.0.0.1:8080" + target)
		if err != nil {
			t.Fatal(err)
		}
		return &http.Request{Method: method, URL: u, Host: "upstream.example:8080", Header: h, Close: close}
	}
	cases := map[string]*http.Request{
		"plain GET":               mk("GET", "/search?q=a%20b&x=1", http.Header{}, false),
		"headers, several values": mk("GET", "/news", http.Header{"Accept": {"text/html"}, "X-Forwarded-For": {"10.0.0.1, 127.0.0.1"}, "Cookie": {"a=1", "b=2"}}, false),
		"empty user agent":        mk("GET", "/", http.Header{"User-Agent": {""}}, false),
		"own user agent":          mk("HEAD", "/", http.Header{"User-Agent": {"  vegeta  "}}, false),
		"POST without a body":     mk("POST", "/form", http.Header{"Content-Type": {"text/plain"}}, false),
		"PUT without a body":      mk("PUT", "/x", http.Header{}, false),
		"DELETE":                  mk("DELETE", "/x", http.Header{}, false),
		"close":                   mk("GET", "/x", http.Header{}, true),
		"escaped path":            mk("GET", "/a%2Fb/c d", http.Header{}, false),
		"headers req.Write skips": mk("GET", "/", http.Header{"Content-Length": {"5"}, "Transfer-Encoding": {"chunked"}, "Trailer": {"X"}, "Host": {"other"}}, false),
		"line break in a value":   mk("GET", "/", http.Header{"X-Note": {"one\r\ntwo"}}, false),
	}
	for name, req := range cases {
		t.Run(name, func(t *testing.T) {
			var want bytes.Buffer
			if err := req.Write(&want); err != nil {
				t.Fatal(err)
			}
			got, _ := AppendRequest(nil, req)
			w, err := http.ReadRequest(bufio.NewReader(&want))
			if err != nil {
				t.Fatalf("req.Write's bytes: %v", err)
			}
			g, err := http.ReadRequest(bufio.NewReader(bytes.NewReader(got)))
			if err != nil {
				t.Fatalf("AppendRequest's bytes %q: %v", got, err)
			}
			if g.Method != w.Method || g.RequestURI != w.RequestURI || g.Host != w.Host || g.Close != w.Close || g.ContentLength != w.ContentLength {
				t.Errorf("got %s %s host %s close %v length %d, req.Write sends %s %s host %s close %v length %d\n%q",
					g.Method, g.RequestURI, g.Host, g.Close, g.ContentLength, w.Method, w.RequestURI, w.Host, w.Close, w.ContentLength, got)
			}
			if !reflect.DeepEqual(g.Header, w.Header) {
				t.Errorf("headers %v, req.Write sends %v", g.Header, w.Header)
			}
		})
	}
}
