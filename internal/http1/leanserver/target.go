package leanserver

import (
	"net/url"
	"strings"
)

// plainTarget reports whether target (a request target the lean parser
// took: it starts with '/' and holds no space) is one that
// url.ParseRequestURI reads as its path, unchanged, and its query: every
// byte of the path is one net/url's path escaping keeps as it is (letters,
// digits, "-_.~$&+,/:;=@"), so no '%' and no RawPath, and no control
// character anywhere. Such a target's URL is made by setPlainURL, without
// a parse and an allocation of its own; any other is read by
// url.ParseRequestURI as before.
func plainTarget(target string) bool {
	i := 0
	for ; i < len(target) && target[i] != '?'; i++ {
		if c := target[i]; !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || plainPathPunct[c]) {
			return false
		}
	}
	for ; i < len(target); i++ {
		if c := target[i]; c < 0x20 || c == 0x7f {
			return false
		}
	}
	return true
}

// plainPathPunct are the punctuation bytes net/url's path escaping
// (shouldEscape in encodePath mode) leaves as they are.
var plainPathPunct = func() (t [256]bool) {
	for _, c := range []byte("-_.~$&+,/:;=@") {
		t[c] = true
	}
	return t
}()

// setPlainURL sets u to what url.ParseRequestURI(target) returns for a
// target plainTarget takes: the path up to the first '?', the query after
// it (ForceQuery when it is empty).
func setPlainURL(u *url.URL, target string) {
	path, query, hasQuery := strings.Cut(target, "?")
	*u = url.URL{Path: path, RawQuery: query, ForceQuery: hasQuery && query == ""}
}
