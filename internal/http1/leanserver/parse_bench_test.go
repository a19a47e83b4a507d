package leanserver

import (
	"net/http"
	"testing"

	"github.com/loadlab/loadlab/internal/httpsyntax"
)

// BenchmarkParseHead measures the lean server's head parser on a typical
// load-test request (the hot path of every request it serves): the
// fields alone (what a RawHandler gets) and with the header made of them
// (what an http.Handler gets).
func BenchmarkParseHead(b *testing.B) {
	in := []byte("GET /search?q=abcdefghijklmnopqrstuvwxyz HTTP/1.1\r\nHost: 127.0.0.1:8080\r\n" +
		"User-Agent: loadlab\r\nAccept: */*\r\nAccept-Encoding: gzip\r\nX-Forwarded-For: 10.0.0.1\r\n\r\n")
	hdr := make(http.Header, 8)
	var fields []httpsyntax.Field
	for _, header := range []bool{false, true} {
		name := "fields"
		if header {
			name = "header"
		}
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				r, _, err := parseHeadInto(in, fields)
				if err != nil {
					b.Fatal(err)
				}
				fields = r.fields
				if header {
					r.fillHeader(hdr)
				}
			}
		})
	}
}
