package serve

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/loadlab/loadlab/internal/httpcases"
)

// The lean server (with the connections it hands over) must answer every
// request stream as net/http's server does: the same requests reach the
// handler with the same method, target, headers, body and framing, the
// same are refused, and the connection ends alike. Differences must be
// the documented ones (docs/http1.md).
func TestLeanAgreesWithNetHTTP(t *testing.T) {
	lean := strings.TrimPrefix(start(t, Config{}, httpcases.Echo), "http://")
	std := strings.TrimPrefix(start(t, Config{Std: true}, httpcases.Echo), "http://")
	differ := map[string]string{}
	for _, c := range httpcases.Requests {
		if d := leanDiffers(t, lean, std, c.Raw); d != "" {
			differ[c.Name] = d
		}
	}
	httpcases.Hold(t, httpcases.LeanRequests, differ)
}

// leanDiffers sends raw to both servers and says how their answers differ
// ("" when they agree).
func leanDiffers(t testing.TB, lean, std, raw string) string {
	t.Helper()
	l, err := httpcases.Exchange(lean, raw, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	s, err := httpcases.Exchange(std, raw, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if l.String() == s.String() {
		return ""
	}
	return "lean server:\n" + l.String() + "\nnet/http's server:\n" + s.String()
}

// FuzzLeanAgainstNetHTTP sends arbitrary request streams to the lean
// server and to net/http's: they must answer alike.
func FuzzLeanAgainstNetHTTP(f *testing.F) {
	for _, c := range httpcases.Requests {
		if len(c.Raw) < 4<<10 {
			f.Add([]byte(c.Raw))
		}
	}
	lean := strings.TrimPrefix(start(f, Config{}, httpcases.Echo), "http://")
	std := strings.TrimPrefix(start(f, Config{Std: true}, httpcases.Echo), "http://")
	f.Fuzz(func(t *testing.T, raw []byte) {
		if http10CloseAndKeepAlive(raw) {
			t.Skip("documented difference: http10-close-then-keep-alive")
		}
		if d := leanDiffers(t, lean, std, string(raw)); d != "" {
			t.Fatalf("%q:\n%s", raw, d)
		}
	})
}

// http10CloseAndKeepAlive reports whether raw holds an HTTP/1.0 request
// and both "close" and "keep-alive" (the documented difference
// http10-close-then-keep-alive).
func http10CloseAndKeepAlive(raw []byte) bool {
	l := bytes.ToLower(raw)
	return bytes.Contains(l, []byte("http/1.0")) && bytes.Contains(l, []byte("close")) && bytes.Contains(l, []byte("keep-alive"))
}
