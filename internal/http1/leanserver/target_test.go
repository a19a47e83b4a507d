package leanserver

import (
	"net/url"
	"testing"
)

// FuzzPlainTarget checks the lean server's URL without a parse against
// url.ParseRequestURI's: for every target plainTarget takes, the same URL.
func FuzzPlainTarget(f *testing.F) {
	for _, s := range []string{
		"/", "/x", "/search?q=abc&n=1", "/a?", "/a??", "/a?b?", "//host/p", "/a:b@c;d=e,f+g$h&i~j",
		"/%41", "/a b", "/a!b", "/a#f", "/a?q=%zz", "/é", "/a?\x7f", "/(x)", "/[x]",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, target string) {
		if target == "" || target[0] != '/' || !plainTarget(target) {
			return
		}
		std, err := url.ParseRequestURI(target)
		if err != nil {
			t.Fatalf("plainTarget takes %q, url.ParseRequestURI refuses it: %v", target, err)
		}
		var u url.URL
		setPlainURL(&u, target)
		if u != *std {
			t.Fatalf("%q: lean %#v, net/url %#v", target, u, *std)
		}
		if u.RequestURI() != std.RequestURI() || u.EscapedPath() != std.EscapedPath() {
			t.Fatalf("%q: RequestURI %q / %q, EscapedPath %q / %q", target, u.RequestURI(), std.RequestURI(), u.EscapedPath(), std.EscapedPath())
		}
	})
}

// TestPlainTarget pins which targets skip url.ParseRequestURI: the common
// ones do, and anything with an escape, a byte net/url escapes or a
// control character does not.
func TestPlainTarget(t *testing.T) {
	for target, want := range map[string]bool{
		"/": true, "/api/v1/items?id=42&x=y z": true, "/a?": true, "/a:b@c;d=e,f+g$h&i~j": true, "//x": true,
		"/%41": false, "/a!b": false, "/é": false, "/a#f": false, "/a?\x01": false, "/a\x7f": false, "/[x]": false,
	} {
		if got := plainTarget(target); got != want {
			t.Errorf("plainTarget(%q) = %v, want %v", target, got, want)
		}
	}
}
