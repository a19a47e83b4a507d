package http1

import (
	"bufio"
	"bytes"
	"net"
	"strings"
	"testing"

	"github.com/loadlab/loadlab/internal/targets"
)

// sinkConn is a net.Conn whose writes go nowhere: the benchmark below
// measures only the lean client's reading of answers.
type sinkConn struct{ net.Conn }

func (sinkConn) Write(b []byte) (int, error) { return len(b), nil }

// BenchmarkLeanExchange measures the lean client's response reader on a
// length-framed and on a chunked answer, read from memory.
func BenchmarkLeanExchange(b *testing.B) {
	for name, resp := range map[string]string{
		"length":  "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nDate: Mon, 01 Jan 2026 00:00:00 GMT\r\nContent-Length: 64\r\n\r\n" + strings.Repeat("a", 64),
		"chunked": "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nTransfer-Encoding: chunked\r\n\r\n20\r\n" + strings.Repeat("a", 32) + "\r\n20\r\n" + strings.Repeat("b", 32) + "\r\n0\r\n\r\n",
	} {
		b.Run(name, func(b *testing.B) {
			tr, err := targets.Static("GET", "http://bench.test/")
			if err != nil {
				b.Fatal(err)
			}
			tg, _ := tr.Next()
			_, w := testLean(Options{Redirects: -1})
			const batch = 1024
			all := []byte(strings.Repeat(resp, batch))
			rd := bytes.NewReader(all)
			c := &leanConn{c: sinkConn{}, br: bufio.NewReaderSize(rd, 8<<10)}
			req := []byte("GET / HTTP/1.1\r\nHost: bench.test\r\n\r\n")
			var r Exchange
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				if i == batch {
					rd.Reset(all)
					c.br.Reset(rd)
					i = 0
				}
				i++
				if _, err := w.lean.exchange(w, c, tg, req, &r); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
