// Package httpsyntax is the bytes of HTTP/1.1 that loadlab's own wire
// code shares: the attack's lean client (package http1), the lean server
// (package leanserver) and the proxy's upstream pool. It checks field
// names, field values, Content-Length values and chunk sizes exactly as
// net/http checks them, scans an answer's head in place (ScanAnswer), and
// writes request heads as net/http's Request.Write would (AppendRequest,
// AppendForwarded, AppendForwardedFields). The checks and the scanner
// allocate nothing: they run per request.
package httpsyntax

// tokenByte marks the bytes a field name may hold (RFC 9110 tchar).
var tokenByte = func() (t [256]bool) {
	for c := '0'; c <= '9'; c++ {
		t[c] = true
	}
	for c := 'a'; c <= 'z'; c++ {
		t[c], t[c-'a'+'A'] = true, true
	}
	for _, c := range "!#$%&'*+-.^_`|~" {
		t[c] = true
	}
	return t
}()

// Token reports whether b is a token (a field name, a method): not empty,
// only tchar bytes.
func Token[S ~string | ~[]byte](b S) bool {
	if len(b) == 0 {
		return false
	}
	for i := 0; i < len(b); i++ {
		if !tokenByte[b[i]] {
			return false
		}
	}
	return true
}

// FieldValue reports whether v may be a field value: no control byte but
// tab (bytes from 0x80 are obs-text, allowed). It is the check net/http
// makes of a value it sends (httpguts.ValidHeaderFieldValue) and reads.
func FieldValue[S ~string | ~[]byte](v S) bool {
	for i := 0; i < len(v); i++ {
		if c := v[i]; c < ' ' && c != '\t' || c == 0x7f {
			return false
		}
	}
	return true
}

// TrimOWS trims spaces and tabs, and only them, around b.
func TrimOWS[S ~string | ~[]byte](b S) S {
	for len(b) > 0 && (b[0] == ' ' || b[0] == '\t') {
		b = b[1:]
	}
	for len(b) > 0 && (b[len(b)-1] == ' ' || b[len(b)-1] == '\t') {
		b = b[:len(b)-1]
	}
	return b
}

// ContentLength parses a Content-Length value: decimal digits only, at
// most 18 of them (so it cannot overflow; net/http takes 19 below 2^63,
// which no test or answer reaches).
func ContentLength(v []byte) (int64, bool) {
	if len(v) == 0 || len(v) > 18 {
		return 0, false
	}
	var n int64
	for _, c := range v {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int64(c-'0')
	}
	return n, true
}

// ChunkSize parses a chunk-size line (without its CRLF) as net/http:
// trailing spaces and tabs, then an extension from ';', are ignored, and
// the size is 1 to 16 hex digits. Sizes from 2^63 are refused (net/http
// takes them, but no body can hold them).
func ChunkSize(line []byte) (int64, bool) {
	for len(line) > 0 && (line[len(line)-1] == ' ' || line[len(line)-1] == '\t') {
		line = line[:len(line)-1]
	}
	for i, c := range line {
		if c == ';' {
			line = line[:i]
			break
		}
	}
	if len(line) == 0 || len(line) > 16 {
		return 0, false
	}
	var n int64
	for _, c := range line {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c = c - 'a' + 10
		case 'A' <= c && c <= 'F':
			c = c - 'A' + 10
		default:
			return 0, false
		}
		if n >= 1<<59 {
			return 0, false
		}
		n = n<<4 | int64(c)
	}
	return n, true
}

// NameIs reports whether name, a field name of ASCII token bytes, is lit
// in any case (ASCII letters fold, as bytes.EqualFold folds them). The
// lengths are compared first: most names of a head are not the one
// looked for and cost no comparison of bytes.
func NameIs(name []byte, lit string) bool {
	if len(name) != len(lit) {
		return false
	}
	for i := 0; i < len(name); i++ {
		a, b := name[i], lit[i]
		if a == b {
			continue
		}
		if 'A' <= a && a <= 'Z' {
			a += 'a' - 'A'
		}
		if 'A' <= b && b <= 'Z' {
			b += 'a' - 'A'
		}
		if a != b {
			return false
		}
	}
	return true
}
