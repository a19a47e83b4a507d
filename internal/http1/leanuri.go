package http1

// sendableAsIs reports whether net/http would write the request target
// (path and query, as splitHTTPURL gives it) byte for byte as it is, so
// that the lean client may send it unchanged. net/http escapes a path's
// spaces, non-ASCII bytes and other characters outside RFC 3986's pchar
// set (url.URL.EscapedPath), sends the query raw, and refuses control
// characters anywhere. A target this reports false for is left to the
// net/http client, which escapes it, or fails the request, as it always
// does: the lean client never puts a request on the wire that net/http
// would have written differently.
func sendableAsIs(target []byte) bool {
	inQuery := false
	for i := 0; i < len(target); i++ {
		c := target[i]
		if c < 0x20 || c == 0x7f {
			return false // net/http: invalid control character in URL
		}
		if inQuery {
			continue // net/http sends the query as written
		}
		switch {
		case c == '?':
			inQuery = true
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		case pathPunct[c]:
		case c == '%':
			if i+2 >= len(target) || !isHex(target[i+1]) || !isHex(target[i+2]) {
				return false // net/http: invalid URL escape
			}
			i += 2
		default:
			return false // net/http escapes it
		}
	}
	return true
}

// pathPunct are the punctuation bytes a path keeps unescaped in net/url's
// EscapedPath: unreserved, sub-delims, ':', '@', '/', and the brackets.
var pathPunct = func() (t [256]bool) {
	for _, c := range []byte("-._~!$&'()*+,;=:@/[]") {
		t[c] = true
	}
	return t
}()

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// validFragment reports whether net/url accepts a URL fragment: no control
// character, every '%' followed by two hex digits.
func validFragment(f []byte) bool {
	for i := 0; i < len(f); i++ {
		switch c := f[i]; {
		case c < 0x20 || c == 0x7f:
			return false
		case c == '%':
			if i+2 >= len(f) || !isHex(f[i+1]) || !isHex(f[i+2]) {
				return false
			}
			i += 2
		}
	}
	return true
}
