package http1

import (
	"bufio"
	"bytes"
	"net/http"
	"testing"
)

// FuzzLeanRequestTarget checks that whatever the lean client sends as it
// is, net/http would have sent byte for byte the same.
func FuzzLeanRequestTarget(f *testing.F) {
	for _, s := range []string{"a b", "search?q={{x}}", "%41?x", "%zz", "é", "a|b{c}", "a?q=a b", "[::]", "a#frag ment", "?only", "a\x7fb", "a/./b//c;p=1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		u := "http://127.0.0.1:1/" + s
		_, path, ok := splitHTTPURL([]byte(u))
		if !ok || !sendableAsIs(path) {
			return // left to net/http
		}
		req, err := http.NewRequest(http.MethodGet, u, nil)
		if err != nil {
			t.Fatalf("lean would send %q, net/http refuses %q: %v", path, u, err)
		}
		var b bytes.Buffer
		w := bufio.NewWriter(&b)
		if err := req.Write(w); err != nil {
			t.Fatalf("lean would send %q, net/http refuses to write it: %v", path, err)
		}
		w.Flush()
		line, _, _ := bytes.Cut(b.Bytes(), []byte("\r\n"))
		if want := "GET " + string(path) + " HTTP/1.1"; string(line) != want {
			t.Fatalf("lean would send %q, net/http sends %q", want, line)
		}
	})
}
