package targets

import (
	"strings"
	"testing"
)

func TestDuetAlternatesSides(t *testing.T) {
	ts, err := ReadAll(strings.NewReader("GET http://127.0.0.1:8080/a?q={{seq}}\nX-Key: {{rand.hex 4}}\n\nPOST https://api.example:8443\n"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	base, err := CheckDuetBase("http://127.0.0.1:9090/")
	if err != nil || base != "http://127.0.0.1:9090" {
		t.Fatalf("base %q, %v", base, err)
	}
	out, err := Duet(ts, base)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"http://127.0.0.1:8080/a?q={{seq}}", "http://127.0.0.1:9090/a?q={{seq}}", "https://api.example:8443", "http://127.0.0.1:9090"}
	if len(out) != 4 {
		t.Fatalf("got %d targets", len(out))
	}
	for i, tg := range out {
		if tg.URL.Source() != want[i] || tg.Index != uint32(i) || tg.Method != ts[i/2].Method || len(tg.Header) != len(ts[i/2].Header) {
			t.Errorf("target %d: %d %s %s, want %s", i, tg.Index, tg.Method, tg.URL.Source(), want[i])
		}
	}
	if _, err := Duet(ts, "http://127.0.0.1:8080"); err == nil || !strings.Contains(err.Error(), "[::ffff:127.0.0.1]") {
		t.Errorf("a B base the targets already use: %v", err)
	}
	for _, bad := range []string{"127.0.0.1:9090", "ftp://x", "http://x/path", "http://x?q=1"} {
		if _, err := CheckDuetBase(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}
