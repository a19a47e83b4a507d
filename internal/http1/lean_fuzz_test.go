package http1

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"fmt"
	"net"
	"testing"
	"time"

	"github.com/loadlab/loadlab/internal/targets"
)

// FuzzLeanResponse feeds arbitrary bytes to the lean client as a server's
// response: it must never panic or hang, and a response it accepts has a
// plausible status code.
func FuzzLeanResponse(f *testing.F) {
	for _, s := range []string{
		"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok",
		"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n",
		"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 204 No Content\r\n\r\n",
		"HTTP/1.0 500 Internal Server Error\r\n\r\nboom",
		"HTTP/1.1 302 Found\r\nLocation: /x\r\nContent-Length: 0\r\n\r\n",
		"garbage\r\n",
		"HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n",
	} {
		f.Add([]byte(s), int64(0))
	}
	// gzip answers, decompressed transparently (leangzip.go)
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte("hello, compressed world"))
	zw.Close()
	for _, body := range [][]byte{gz.Bytes(), gz.Bytes()[:gz.Len()/2], []byte("not gzip")} {
		f.Add(append([]byte(fmt.Sprintf("HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nContent-Length: %d\r\n\r\n", len(body))), body...), int64(-1))
	}
	tr, err := targets.Static("GET", "http://fuzz.test/")
	if err != nil {
		f.Fatal(err)
	}
	tg, _ := tr.Next()
	f.Fuzz(func(t *testing.T, resp []byte, maxBody int64) {
		if maxBody < -1 {
			maxBody = -1
		}
		_, w := testLean(Options{MaxBody: maxBody, Redirects: -1})
		client, server := net.Pipe()
		defer client.Close()
		go func() {
			defer server.Close()
			br := bufio.NewReader(server)
			for {
				l, err := br.ReadSlice('\n')
				if err != nil || len(bytes.TrimSpace(l)) == 0 {
					break
				}
			}
			server.Write(resp)
		}()
		_ = client.SetDeadline(time.Now().Add(2 * time.Second))
		c := &leanConn{c: client, br: bufio.NewReaderSize(client, 8<<10)}
		var r Exchange
		_, err := w.lean.exchange(w, c, tg, []byte("GET / HTTP/1.1\r\nHost: fuzz.test\r\n\r\n"), &r)
		if (err == nil || err == errCloseAfter) && (r.Code < 100 || r.Code > 999) {
			t.Fatalf("accepted status %d", r.Code)
		}
		if maxBody >= 0 && int64(len(r.Body)) > maxBody {
			t.Fatalf("kept %d body bytes, limit %d", len(r.Body), maxBody)
		}
	})
}
