package http1

import (
	"net/http"
	"testing"
)

// BenchmarkParseHead measures the lean server's head parser on a typical
// load-test request (the hot path of every request it serves).
func BenchmarkParseHead(b *testing.B) {
	in := []byte("GET /search?q=abcdefghijklmnopqrstuvwxyz HTTP/1.1\r\nHost: 127.0.0.1:8080\r\n" +
		"User-Agent: loadlab\r\nAccept: */*\r\nAccept-Encoding: gzip\r\nX-Forwarded-For: 10.0.0.1\r\n\r\n")
	hdr := make(http.Header, 8)
	b.ReportAllocs()
	for b.Loop() {
		if _, _, err := parseHeadInto(in, hdr); err != nil {
			b.Fatal(err)
		}
	}
}
