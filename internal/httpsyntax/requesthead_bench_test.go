package httpsyntax

import (
	"net/http"
	"net/url"
	"testing"
)

// BenchmarkAppendRequest measures the head the proxy writes upstream for
// a typical forwarded GET.
func BenchmarkAppendRequest(b *testing.B) {
	u, _ := url.Parse("http://127.0.0.1:8080/search?q=abcdefghijklmnopqrstuvwxyz")
	req := &http.Request{Method: "GET", URL: u, Host: "127.0.0.1:8080", Header: http.Header{
		"User-Agent": {""}, "Accept": {"*/*"}, "Accept-Encoding": {"gzip"}, "X-Forwarded-For": {"10.0.0.1, 127.0.0.1"},
	}}
	buf := make([]byte, 0, 1024)
	b.ReportAllocs()
	for b.Loop() {
		buf, _ = AppendRequest(buf[:0], req)
	}
}
