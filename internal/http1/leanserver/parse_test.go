package leanserver

import (
	"bufio"
	"bytes"
	"errors"
	"maps"
	"net/http"
	"slices"
	"strings"
	"testing"
)

func TestParseHead(t *testing.T) {
	for _, c := range []struct {
		name, in string
		status   int // 0: parsed; -1: needs more
		check    func(*leanReq) bool
	}{
		{"get", "GET /a?b=1 HTTP/1.1\r\nHost: x\r\n\r\n", 0, func(r *leanReq) bool {
			return r.method == "GET" && r.target == "/a?b=1" && r.host == "x" && !r.close && r.minor == 1
		}},
		{"post body", "POST /_admin/add_recipe HTTP/1.1\r\nHost: x\r\nContent-Length: 12\r\n\r\n", 0, func(r *leanReq) bool { return r.contentLength == 12 }},
		{"head", "HEAD / HTTP/1.1\r\nhost: x\r\nx-origin-status:  503 \r\n\r\n", 0, func(r *leanReq) bool {
			return r.method == "HEAD" && r.header.Get("X-Origin-Status") == "503"
		}},
		{"close", "GET / HTTP/1.1\r\nHost: x\r\nConnection: keep-alive, Close\r\n\r\n", 0, func(r *leanReq) bool { return r.close }},
		{"http10", "GET / HTTP/1.0\r\n\r\n", 0, func(r *leanReq) bool { return r.close }},
		{"http10 keep-alive", "GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n", 0, func(r *leanReq) bool { return !r.close }},
		{"partial", "GET / HTTP/1.1\r\nHost: x\r\n", -1, nil},
		{"empty", "", -1, nil},
		{"no host", "GET / HTTP/1.1\r\n\r\n", 400, nil},
		{"two hosts", "GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n", 400, nil},
		{"chunked", "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n", 501, nil},
		{"expect", "POST / HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: 1\r\n\r\n", 501, nil},
		{"upgrade", "GET / HTTP/1.1\r\nHost: x\r\nUpgrade: h2c\r\n\r\n", 501, nil},
		{"h2 preface", "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n", 505, nil},
		{"bad cl", "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: -1\r\n\r\n", 400, nil},
		{"plus cl", "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: +1\r\n\r\n", 400, nil},
		{"two cls", "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n", 400, nil},
		{"bad line", "GET/HTTP/1.1\r\nHost: x\r\n\r\n", 400, nil},
		{"space in target", "GET /a b HTTP/1.1\r\nHost: x\r\n\r\n", 400, nil},
		{"absolute target", "GET http://x/ HTTP/1.1\r\nHost: x\r\n\r\n", 400, nil},
		{"bad header", "GET / HTTP/1.1\r\nHost x\r\n\r\n", 400, nil},
		{"space before colon", "GET / HTTP/1.1\r\nHost : x\r\n\r\n", 400, nil},
		{"too large", "GET / HTTP/1.1\r\nX: " + strings.Repeat("a", maxHead), 431, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			r, n, err := parseHead([]byte(c.in))
			var he *headError
			switch {
			case c.status == -1:
				if !errors.Is(err, errNeedMore) {
					t.Fatalf("want need-more, got %v", err)
				}
			case c.status > 0:
				if !errors.As(err, &he) || he.status != c.status {
					t.Fatalf("want %d, got %v", c.status, err)
				}
			default:
				if err != nil || n != len(c.in) || !c.check(r) {
					t.Fatalf("got %+v n=%d err %v", r, n, err)
				}
			}
		})
	}
}

func FuzzParseHead(f *testing.F) {
	for _, s := range []string{
		"GET / HTTP/1.1\r\nHost: x\r\n\r\n",
		"POST /_admin/add_recipe HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n\r\nabc",
		"GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\nGET / HTTP/1.1\r\n",
		"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n",
		"GET /a HTTP/1.1\r\nhost: x\r\nuser-agent: u\r\nX-Y: 1\r\nx-y:  2 \r\nCookie: c\r\naccept-ENCODING: gzip\r\n\r\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		r, n, err := parseHead(b)
		var he *headError
		switch {
		case err == nil:
			if n > len(b) || n < 4 || r.contentLength < 0 || r.header == nil || r.target == "" {
				t.Fatalf("bad parse %+v n=%d", r, n)
			}
			sameAsNetHTTP(t, b[:n], r)
		case errors.Is(err, errNeedMore):
		case errors.As(err, &he):
			if he.status < 400 || he.status > 599 {
				t.Fatalf("status %d", he.status)
			}
		default:
			t.Fatalf("unexpected error %v", err)
		}
	})
}

// sameAsNetHTTP checks a head parseHead took against net/http's reading of
// it, when net/http takes it too: the same method, target, Host and
// fields (names canonical, values in order).
func sameAsNetHTTP(t *testing.T, head []byte, r *leanReq) {
	t.Helper()
	std, err := http.ReadRequest(bufio.NewReader(bytes.NewReader(head)))
	if err != nil {
		return
	}
	if std.Method != r.method || std.RequestURI != r.target || std.Host != r.host {
		t.Fatalf("request line or Host: lean %q %q %q, net/http %q %q %q", r.method, r.target, r.host, std.Method, std.RequestURI, std.Host)
	}
	if !maps.EqualFunc(std.Header, r.header, slices.Equal[[]string]) {
		t.Fatalf("fields: lean %q, net/http %q", r.header, std.Header)
	}
}
