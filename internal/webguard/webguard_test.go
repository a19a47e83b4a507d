package webguard

import (
	"net/http"
	"net/http/httptest"
	"testing"
)

func TestNeedsToken(t *testing.T) {
	for host, want := range map[string]bool{"127.0.0.1": false, "127.1.2.3": false, "::1": false, "localhost": false,
		"0.0.0.0": true, "::": true, "10.1.2.3": true, "": true, "example.com": true} {
		if got := NeedsToken(host); got != want {
			t.Errorf("NeedsToken(%q) = %v", host, got)
		}
	}
	if a, b := NewToken(), NewToken(); len(a) != 32 || a == b {
		t.Errorf("tokens %q, %q: want 32 hex digits, a new one each time", a, b)
	}
	if !SameToken("abc", "abc") || SameToken("abc", "abd") || SameToken("", "abc") {
		t.Error("SameToken")
	}
}

func TestCrossSite(t *testing.T) {
	for _, c := range []struct {
		host, site, origin string
		cross              bool
	}{
		{"127.0.0.1:8080", "", "", false},
		{"127.0.0.1:8080", "same-origin", "", false},
		{"127.0.0.1:8080", "none", "", false},
		{"127.0.0.1:8080", "cross-site", "", true},
		{"127.0.0.1:8080", "same-site", "", true},
		{"127.0.0.1:8080", "", "http://127.0.0.1:8080", false},
		{"127.0.0.1:8080", "", "http://evil.example", true},
		{"127.0.0.1:8080", "", "null", true},
	} {
		r := httptest.NewRequest("GET", "http://"+c.host+"/", nil)
		if c.site != "" {
			r.Header.Set("Sec-Fetch-Site", c.site)
		}
		if c.origin != "" {
			r.Header.Set("Origin", c.origin)
		}
		if got := CrossSite(r) != ""; got != c.cross {
			t.Errorf("%+v: cross-site %v (%q)", c, got, CrossSite(r))
		}
	}
}

func TestForeignHost(t *testing.T) {
	for host, want := range map[string]string{
		"127.0.0.1:8080": "", "[::1]:80": "", "localhost:1": "", "app.localhost": "", "10.0.0.5": "",
		"evil.example:8080": "evil.example", "rebind.attacker.test": "rebind.attacker.test", "lab.internal": "",
	} {
		r := httptest.NewRequest("GET", "/", nil)
		r.Host = host
		if got := ForeignHost(r, []string{"LAB.internal"}); got != want {
			t.Errorf("ForeignHost(%q) = %q, want %q", host, got, want)
		}
	}
}

// TestForeignHostSpellings: every spelling of this machine passes, and
// names that merely resolve here (or look like it) are refused.
func TestForeignHostSpellings(t *testing.T) {
	req := func(host string) *http.Request { return &http.Request{Host: host, Header: http.Header{}} }
	for _, h := range []string{"127.0.0.1:8080", "[::1]:80", "::1", "localhost", "LOCALHOST:1", "app.localhost:3000", "10.1.2.3", "", "origin.test:80"} {
		if got := ForeignHost(req(h), []string{"Origin.test"}); got != "" {
			t.Errorf("%q refused as %q", h, got)
		}
	}
	for _, h := range []string{"evil.example", "evil.example:80", "localhost.evil.example", "127.0.0.1.nip.io:8080", "origin.test.evil"} {
		if ForeignHost(req(h), []string{"origin.test"}) == "" {
			t.Errorf("%q accepted", h)
		}
	}
}
