package pool

import (
	"bufio"
	"bytes"
	"net/http"
	"net/textproto"
	"reflect"
	"testing"
)

// FuzzPlainAnswer checks the byte path's in-place answer check against
// net/http: every head plainAnswer takes reads through http.ReadResponse
// with the same status, Content-Length and fields (those of the lines it
// hands over), no close and no transfer coding, over the same number of
// bytes; and readLeanResponse takes it too, alike.
func FuzzPlainAnswer(f *testing.F) {
	for _, s := range leanSeeds {
		f.Add([]byte(s))
	}
	f.Add([]byte("HTTP/1.1 203 Fine\r\nDate: x\r\ncontent-length:  6 \r\nx-lower:  spaced  \r\n\r\nhello!"))
	f.Add([]byte("HTTP/1.1 299 X\r\nContent-Length: 0\r\nKeep-Alive: 1\r\n\r\n"))
	f.Fuzz(func(t *testing.T, raw []byte) {
		status, fields, length, n, ok := plainAnswer(raw)
		if !ok {
			return
		}
		req, _ := http.NewRequest(http.MethodGet, "http://upstream/x", nil)
		br := bufio.NewReaderSize(bytes.NewReader(raw), 64<<10)
		want, err := http.ReadResponse(br, req)
		if err != nil {
			t.Fatalf("plainAnswer took %q, net/http refused it: %v", raw, err)
		}
		if len(raw) <= 64<<10 && len(raw)-br.Buffered() != n {
			t.Fatalf("%q: head of %d bytes, net/http read %d", raw, n, len(raw)-br.Buffered())
		}
		h, err := textproto.NewReader(bufio.NewReader(bytes.NewReader(append(append([]byte(nil), fields...), "\r\n"...)))).ReadMIMEHeader()
		if err != nil {
			t.Fatalf("%q: fields %q do not read: %v", raw, fields, err)
		}
		if status != want.StatusCode || length != want.ContentLength || want.Close || len(want.TransferEncoding) != 0 ||
			!reflect.DeepEqual(http.Header(h), want.Header) {
			t.Fatalf("%q: plainAnswer %d %d %v, net/http %d %d close %v %v %v", raw, status, length, h, want.StatusCode, want.ContentLength, want.Close, want.TransferEncoding, want.Header)
		}
		lean, took, err := readLeanResponse(bufio.NewReaderSize(bytes.NewReader(raw), 64<<10), req)
		if err != nil || !took || lean.StatusCode != status || lean.ContentLength != length || !reflect.DeepEqual(lean.Header, want.Header) {
			t.Fatalf("%q: readLeanResponse %v %v differs from plainAnswer", raw, took, err)
		}
	})
}
