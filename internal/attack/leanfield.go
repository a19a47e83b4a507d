package attack

import (
	"bufio"
	"bytes"
	"errors"
)

// The syntax checks of the lean client's response reader, as net/http's
// (net/textproto and net/http/internal): header field names are tokens,
// values hold no control byte but tab, lengths are decimal digits, chunk
// lines end in CRLF and chunk sizes are hex digits.

// maxResponseHead bounds the status lines and fields of one answer (1xx
// answers and trailers included), as net/http's Transport's default
// MaxResponseHeaderBytes.
const maxResponseHead = 10 << 20

// maxChunkLine bounds a chunk-size line, as net/http.
const maxChunkLine = 4096

var (
	errMalformedField = errors.New("malformed MIME header line")
	errHeadTooLarge   = errors.New("server response headers exceeded 10 MiB")
	errChunkLine      = errors.New("malformed chunked encoding")
	errChunkExcess    = errors.New("chunked encoding contains too much non-data")
)

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

func validFieldName(b []byte) bool {
	if len(b) == 0 {
		return false
	}
	for _, c := range b {
		if !tokenByte[c] {
			return false
		}
	}
	return true
}

// validFieldValue reports whether v holds no control byte but tab.
func validFieldValue(v []byte) bool {
	for _, c := range v {
		if c < ' ' && c != '\t' || c == 0x7f {
			return false
		}
	}
	return true
}

// trimOWS trims spaces and tabs around b.
func trimOWS(b []byte) []byte {
	for len(b) > 0 && (b[0] == ' ' || b[0] == '\t') {
		b = b[1:]
	}
	for len(b) > 0 && (b[len(b)-1] == ' ' || b[len(b)-1] == '\t') {
		b = b[:len(b)-1]
	}
	return b
}

// trimEOL removes the line's LF and the CR before it, if any.
func trimEOL(b []byte) []byte {
	b = b[:len(b)-1]
	if len(b) > 0 && b[len(b)-1] == '\r' {
		b = b[:len(b)-1]
	}
	return b
}

// parseLength parses a Content-Length value: decimal digits only (at most
// 18, so it cannot overflow).
func parseLength(v []byte) (int64, bool) {
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

// parseChunkSize parses a chunk-size line (without its CRLF) as net/http:
// trailing spaces and tabs and an extension after ';' are ignored, the
// size is 1 to 16 hex digits. Sizes from 2^63 are refused (net/http takes
// them, but no answer can hold them).
func parseChunkSize(line []byte) (int64, bool) {
	line = bytes.TrimRight(line, " \t")
	if i := bytes.IndexByte(line, ';'); i >= 0 {
		line = line[:i]
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

// readChunkLine reads a chunk-size line: it must end in CRLF, hold no
// other CR and be shorter than maxChunkLine.
func readChunkLine(br *bufio.Reader) ([]byte, error) {
	p, err := br.ReadSlice('\n')
	if err != nil {
		if errors.Is(err, bufio.ErrBufferFull) {
			return nil, errChunkLine
		}
		return nil, err
	}
	if i := bytes.IndexByte(p, '\r'); i != len(p)-2 {
		return nil, errChunkLine
	}
	p = p[:len(p)-2]
	if len(p) >= maxChunkLine {
		return nil, errChunkLine
	}
	return p, nil
}

// skipLongField reads the rest of a field line longer than the reader's
// buffer, whose start is first, checking its syntax. Such a field must
// not be one the reader uses (isUsed): those fit in the buffer.
func skipLongField(br *bufio.Reader, first []byte, isUsed func([]byte) bool, budget *int) error {
	k, v, ok := bytes.Cut(first, []byte(":"))
	if !ok || !validFieldName(k) || isUsed(k) {
		return errMalformedField
	}
	cr := false // a CR may only come right before the final LF
	check := func(b []byte) bool {
		for _, c := range b {
			if cr {
				return false
			}
			if c == '\r' {
				cr = true
			} else if c < ' ' && c != '\t' || c == 0x7f {
				return false
			}
		}
		return true
	}
	if !check(v) {
		return errMalformedField
	}
	for {
		p, err := br.ReadSlice('\n')
		if *budget -= len(p); *budget < 0 {
			return errHeadTooLarge
		}
		switch {
		case err == nil:
			if !check(p[:len(p)-1]) {
				return errMalformedField
			}
			return nil
		case errors.Is(err, bufio.ErrBufferFull):
			if !check(p) {
				return errMalformedField
			}
		default:
			return err
		}
	}
}
