package pool

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"net/http"
	"reflect"
	"strings"
	"testing"
)

// leanSeeds are response heads and bodies: the plain kind the lean reader
// takes (the first seven), and neighbours it must leave to
// http.ReadResponse.
var leanSeeds = []string{
	"HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Type: text/plain\r\n\r\nhello",
	"HTTP/1.1 200 OK\r\nCache-Control: private, max-age=0\r\nContent-Length: 3\r\nDate: Fri, 27 Nov 2026 07:34:33 GMT\r\nContent-Type: text/html; charset=utf-8\r\n\r\nxyz",
	"HTTP/1.1 503 Service Unavailable\r\ncontent-length: 0\r\nX-A: 1\r\nx-a:  2 \t\r\n\r\n",
	"HTTP/1.1 200 \r\nContent-Length: 2\r\nConnection: keep-alive\r\n\r\nok",
	"HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nshort",
	"HTTP/1.1 200 OK\r\nContent-Length: 007\r\n\r\n1234567",
	"HTTP/1.1 200 OK\r\nX-Empty:\r\nContent-Length: 2\r\n\r\nok",
	"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length: 2\r\n\r\nok",
	"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nok\r\n0\r\n\r\n",
	"HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 2\r\n\r\nok",
	"HTTP/1.1 204 No Content\r\nContent-Length: 0\r\n\r\n",
	"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok",
	"HTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\nok",
	"HTTP/1.1 200 OK\r\nX-Folded: a\r\n b\r\nContent-Length: 2\r\n\r\nok",
	"HTTP/1.1 200 OK\r\nBad Name: a\r\nContent-Length: 2\r\n\r\nok",
	"HTTP/1.1 200 OK\r\nPragma: no-cache\r\nContent-Length: 2\r\n\r\nok",
	"HTTP/1.1 200 OK\nContent-Length: 2\n\nok",
	"HTTP/1.1 2x0 OK\r\nContent-Length: 2\r\n\r\nok",
	"HTTP/1.1 200 OK\r\nContent-Length: +2\r\n\r\nok",
}

// FuzzLeanResponse checks the lean response head reader against
// http.ReadResponse: every response it takes reads the same through
// net/http (status, protocol, fields, length, close, body and how the
// body ends), and one it leaves is left unread.
func FuzzLeanResponse(f *testing.F) {
	for _, s := range leanSeeds {
		f.Add([]byte(s), false)
		f.Add([]byte(s), true)
	}
	f.Fuzz(func(t *testing.T, raw []byte, head bool) {
		method := http.MethodGet
		if head {
			method = http.MethodHead
		}
		req, _ := http.NewRequest(method, "http://upstream/x", nil)
		br := bufio.NewReaderSize(bytes.NewReader(raw), 16<<10)
		got, lean, err := readLeanResponse(br, req)
		if err != nil {
			if len(raw) != 0 || !errors.Is(err, io.ErrUnexpectedEOF) {
				t.Fatalf("error %v on %q", err, raw)
			}
			return
		}
		if !lean {
			if br.Buffered() != len(raw) && len(raw) <= 16<<10 {
				t.Fatalf("left the head but consumed %d of %d bytes", len(raw)-br.Buffered(), len(raw))
			}
			return
		}
		want, werr := http.ReadResponse(bufio.NewReader(bytes.NewReader(raw)), req)
		if werr != nil {
			t.Fatalf("lean took %q, net/http refused it: %v", raw, werr)
		}
		if got.Status != want.Status || got.StatusCode != want.StatusCode || got.Proto != want.Proto ||
			got.ProtoMajor != want.ProtoMajor || got.ProtoMinor != want.ProtoMinor ||
			got.ContentLength != want.ContentLength || got.Close != want.Close ||
			!reflect.DeepEqual(got.Header, want.Header) || got.TransferEncoding != nil || want.TransferEncoding != nil {
			t.Fatalf("on %q\nlean     %q %d %s %d %v %v\nnet/http %q %d %s %d %v %v", raw,
				got.Status, got.StatusCode, got.Proto, got.ContentLength, got.Close, got.Header,
				want.Status, want.StatusCode, want.Proto, want.ContentLength, want.Close, want.Header)
		}
		gb, gerr := io.ReadAll(got.Body)
		wb, wantErr := io.ReadAll(want.Body)
		if !bytes.Equal(gb, wb) || !errors.Is(gerr, wantErr) && !(gerr != nil && wantErr != nil && gerr.Error() == wantErr.Error()) {
			t.Fatalf("body on %q: lean %q, %v; net/http %q, %v", raw, gb, gerr, wb, wantErr)
		}
		if gc, wc := got.Body.Close(), want.Body.Close(); (gc == nil) != (wc == nil) {
			t.Fatalf("close on %q: lean %v, net/http %v", raw, gc, wc)
		}
	})
}

// TestLeanResponseTakes checks that the lean reader takes the plain heads
// (so the fuzz test compares something) and leaves the others.
func TestLeanResponseTakes(t *testing.T) {
	for i, s := range leanSeeds {
		req, _ := http.NewRequest(http.MethodGet, "http://upstream/x", nil)
		_, lean, err := readLeanResponse(bufio.NewReader(strings.NewReader(s)), req)
		if err != nil {
			t.Fatal(err)
		}
		if want := i < 7; lean != want {
			t.Errorf("seed %d (%q): lean %v, want %v", i, s, lean, want)
		}
	}
}
