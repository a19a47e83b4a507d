package httpsyntax

import "bytes"

// Answer is what ScanAnswer found in an answer's head, pieces of the
// scanned bytes.
type Answer struct {
	// Status is the status code, Reason the status line after it ("200
	// OK" without "200 ").
	Status int
	Reason []byte
	// Line is the status line without its CRLF.
	Line []byte
	// Fields are the field lines, each ending in CRLF (the status line
	// and the blank line left out).
	Fields []byte
	// Length is the one Content-Length's value.
	Length int64
	// KeepAlive is true when Connection fields came (each "keep-alive").
	KeepAlive bool
	// Size is the head's bytes, the blank line included.
	Size int
}

var (
	crlf  = []byte("\r\n")
	crlf2 = []byte("\r\n\r\n")
)

// ScanAnswer checks in place an answer's head at the start of b, of the
// plain kind every fast upstream sends, the one loadlab's readers take
// without net/http: ok when the head is there whole and is
// "HTTP/1.1 DDD reason" with a reason of visible characters, field names
// of token bytes and values of visible ASCII, spaces and tabs (no
// obs-text), CRLF line ends (no folded line), exactly one Content-Length
// of 1 to 18 decimal digits, no Transfer-Encoding, Trailer or Pragma
// field, and no Connection field but "keep-alive". Any other head is
// net/http's to read: ok is false. The proxy's pool fuzzes both its
// readers built on it against http.ReadResponse.
func ScanAnswer(b []byte) (a Answer, ok bool) {
	end := bytes.Index(b, crlf2)
	if end < 0 {
		return Answer{}, false
	}
	eol := bytes.Index(b, crlf)
	line := b[:eol]
	if len(line) < 13 || string(line[:9]) != "HTTP/1.1 " || line[12] != ' ' || !Visible(line[13:]) {
		return Answer{}, false
	}
	code := 0
	for _, c := range line[9:12] {
		if c < '0' || c > '9' {
			return Answer{}, false
		}
		code = code*10 + int(c-'0')
	}
	a = Answer{Status: code, Reason: line[13:], Line: line, Fields: b[eol+2 : end+2], Length: -1, Size: end + 4}
	for rest := a.Fields; len(rest) > 0; {
		i := bytes.Index(rest, crlf)
		field := rest[:i]
		rest = rest[i+2:]
		colon := 0
		for colon < len(field) && tokenByte[field[colon]] {
			colon++
		}
		if colon == 0 || colon == len(field) || field[colon] != ':' || !Visible(field[colon+1:]) {
			return Answer{}, false // empty name, a byte not allowed, obs-fold
		}
		name := field[:colon]
		switch {
		case NameIs(name, "Transfer-Encoding"), NameIs(name, "Trailer"), NameIs(name, "Pragma"):
			return Answer{}, false
		case NameIs(name, "Connection"):
			if v := TrimOWS(field[colon+1:]); !NameIs(v, "keep-alive") { // close: net/http's job
				return Answer{}, false
			}
			a.KeepAlive = true
		case NameIs(name, "Content-Length"):
			n, ok := ContentLength(TrimOWS(field[colon+1:]))
			if a.Length >= 0 || !ok {
				return Answer{}, false
			}
			a.Length = n
		}
	}
	if a.Length < 0 {
		return Answer{}, false
	}
	return a, true
}

// Visible reports whether s holds only visible ASCII, spaces and tabs:
// the field values and reasons of a plain answer (ScanAnswer).
func Visible[S ~string | ~[]byte](s S) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; (c < ' ' && c != '\t') || c >= 0x7f {
			return false
		}
	}
	return true
}
