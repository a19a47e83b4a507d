package attack

import (
	"bytes"
	"compress/gzip"
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// Both clients ask for gzip as net/http does and count the decompressed
// answer in bytes in (vegeta's figure); a request that sets its own
// Accept-Encoding gets, and counts, the compressed bytes; a corrupt
// compressed answer is an error.
func TestGzipAnswers(t *testing.T) {
	plain := bytes.Repeat([]byte("loadlab compresses well. "), 400) // 10,000 bytes
	var zbuf bytes.Buffer
	zw := gzip.NewWriter(&zbuf)
	zw.Write(plain)
	zw.Close()
	gz := zbuf.Bytes()
	var mu sync.Mutex
	var asked []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		asked = append(asked, r.Header.Get("Accept-Encoding"))
		mu.Unlock()
		switch {
		case r.URL.Path == "/corrupt":
			w.Header().Set("Content-Encoding", "gzip")
			w.Write([]byte("not gzip at all"))
		case r.URL.Path == "/empty":
			w.Header().Set("Content-Encoding", "gzip")
		case strings.Contains(r.Header.Get("Accept-Encoding"), "gzip"):
			w.Header().Set("Content-Encoding", "gzip")
			if r.URL.Path == "/chunked" {
				w.(http.Flusher).Flush() // no Content-Length: chunked
			}
			w.Write(gz)
		default:
			w.Write(plain)
		}
	}))
	defer srv.Close()
	cases := []struct {
		name, targets string
		bytesIn       int
		asked, err    string
	}{
		{"auto", "GET " + srv.URL + "/a", len(plain), "gzip", ""},
		{"auto chunked", "GET " + srv.URL + "/chunked", len(plain), "gzip", ""},
		{"own header", "GET " + srv.URL + "/a\nAccept-Encoding: gzip", len(gz), "gzip", ""},
		{"range", "GET " + srv.URL + "/a\nRange: bytes=0-", len(plain), "", ""},
		{"head", "HEAD " + srv.URL + "/a", 0, "", ""},
		{"empty", "GET " + srv.URL + "/empty", 0, "gzip", ""},
		{"corrupt", "GET " + srv.URL + "/corrupt", 0, "gzip", "gzip: invalid header"},
	}
	for _, client := range clients {
		for _, c := range cases {
			t.Run(client+"/"+c.name, func(t *testing.T) {
				mu.Lock()
				asked = nil
				mu.Unlock()
				o := DefaultOptions()
				o.Client, o.MaxBody = client, -1
				o.Schedule = sched(t, "20/s", 150*time.Millisecond)
				rs, _ := run(t, context.Background(), parse(t, c.targets), o)
				if len(rs) < 2 {
					t.Fatalf("%d results", len(rs))
				}
				for _, r := range rs {
					if r.Error != c.err || (c.err == "" && int(r.BytesIn) != c.bytesIn) {
						t.Fatalf("bytes in %d, error %q; want %d, %q", r.BytesIn, r.Error, c.bytesIn, c.err)
					}
					if c.err == "" && c.bytesIn == len(plain) && !bytes.Equal(r.Body, plain) {
						t.Fatalf("kept body is not the decompressed answer (%d bytes)", len(r.Body))
					}
				}
				mu.Lock()
				defer mu.Unlock()
				for _, a := range asked {
					if a != c.asked {
						t.Fatalf("server saw Accept-Encoding %q, want %q", a, c.asked)
					}
				}
			})
		}
	}
}
