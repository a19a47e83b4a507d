package httpsyntax

import (
	"bufio"
	"bytes"
	"io"
	"net/http/httputil"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/net/http/httpguts"
)

// agree checks every function on b against what net/http does with it.
func agree(t *testing.T, b []byte) {
	if Token(b) != httpguts.ValidHeaderFieldName(string(b)) {
		t.Errorf("Token(%q) = %v, net/http's ValidHeaderFieldName differs", b, Token(b))
	}
	if FieldValue(b) != httpguts.ValidHeaderFieldValue(string(b)) {
		t.Errorf("FieldValue(%q) = %v, net/http's ValidHeaderFieldValue differs", b, FieldValue(b))
	}
	// net/http: strconv.ParseUint(v, 10, 63) on the trimmed value.
	n, ok := ContentLength(b)
	want, err := strconv.ParseUint(string(b), 10, 63)
	if ok && (err != nil || int64(want) != n) || !ok && err == nil && len(b) <= 18 {
		t.Errorf("ContentLength(%q) = %d %v, net/http: %d %v", b, n, ok, want, err)
	}
	// net/http's chunked reader on the line, a body of that size (when
	// small) and the last chunk.
	if bytes.ContainsAny(b, "\r\n") {
		return
	}
	size, ok := ChunkSize(b)
	body := int64(0)
	if ok && size < 64 {
		body = size
	}
	in := string(b) + "\r\n" + string(bytes.Repeat([]byte("x"), int(body))) + "\r\n0\r\n\r\n"
	got, err := io.ReadAll(httputil.NewChunkedReader(bufio.NewReader(bytes.NewReader([]byte(in)))))
	switch {
	case ok && size < 64 && (err != nil || int64(len(got)) != size):
		t.Errorf("ChunkSize(%q) = %d, net/http reads %d bytes, %v", b, size, len(got), err)
	case !ok && err == nil:
		t.Errorf("ChunkSize(%q) refuses it, net/http reads %q", b, got)
	}
}

func TestAgreesWithNetHTTP(t *testing.T) {
	for _, s := range []string{"", "a", "Content-Length", "a b", "a:b", "x\x00", "caf\xc3\xa9", "\t v \t", "\x7f", "0", "007",
		"-0", "+1", "1 2", "123456789012345678", "1234567890123456789", "ff", "FF;ext", "5 ;a=b", "5 ", " 5", "0x5",
		"ffffffffffffffff", "10000000000000000", "7fffffffffffffff"} {
		agree(t, []byte(s))
	}
}

func FuzzAgreesWithNetHTTP(f *testing.F) {
	for _, s := range []string{"Content-Length", "a b", "\t v \t", "007", "-0", "5 ;a=b", "0x5", "ffffffffffffffff"} {
		f.Add([]byte(s))
	}
	f.Fuzz(agree)
}

func TestTrimOWS(t *testing.T) {
	for in, want := range map[string]string{" \ta b\t ": "a b", "\xc2\xa0x\xc2\xa0": "\xc2\xa0x\xc2\xa0", "\vx": "\vx", "": ""} {
		if got := string(TrimOWS([]byte(in))); got != want {
			t.Errorf("TrimOWS(%q) = %q, want %q", in, got, want)
		}
	}
}

// FuzzNameIs checks NameIs against bytes.EqualFold on ASCII names.
func FuzzNameIs(f *testing.F) {
	for _, c := range [][2]string{{"Content-Length", "content-length"}, {"DATE", "Date"}, {"Te", "TE"}, {"X-A", "X-B"}, {"a[", "A{"}, {"@", "`"}} {
		f.Add(c[0], c[1])
	}
	f.Fuzz(func(t *testing.T, name, lit string) {
		for _, s := range []string{name, lit} {
			for i := 0; i < len(s); i++ {
				if s[i] >= 0x80 {
					return
				}
			}
		}
		if got, want := NameIs([]byte(name), lit), strings.EqualFold(name, lit); got != want {
			t.Fatalf("NameIs(%q, %q) = %v, strings.EqualFold %v", name, lit, got, want)
		}
	})
}
