package webguard

import (
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
