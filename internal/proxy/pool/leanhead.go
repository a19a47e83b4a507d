package pool

import (
	"bufio"
	"bytes"
	"io"
	"net/http"
	"net/textproto"
	"strings"
)

// readLeanResponse reads a response head the way http.ReadResponse would,
// without its line reader and transfer logic, when the head is entirely in
// br once the first bytes arrived and is of the plain kind every fast
// upstream sends: "HTTP/1.1", a final status other than 204 and 304, one
// Content-Length, no Transfer-Encoding, Trailer or Pragma field, no
// Connection field but "keep-alive", field names of token bytes and values of visible ASCII, spaces
// and tabs, CRLF line ends, and a request other than HEAD. It reports
// false, having consumed nothing, for any other head: the caller then
// calls http.ReadResponse on the same reader. An error is one reading
// the first bytes, worded as http.ReadResponse words it.
// FuzzLeanResponse checks that every head it accepts reads the same as
// through http.ReadResponse.
func readLeanResponse(br *bufio.Reader, req *http.Request) (*http.Response, bool, error) {
	if _, err := br.Peek(1); err != nil {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return nil, false, err
	}
	if req != nil && req.Method == http.MethodHead {
		return nil, false, nil
	}
	buf, _ := br.Peek(br.Buffered())
	end := bytes.Index(buf, crlf2)
	if end < 0 {
		return nil, false, nil
	}
	head := string(buf[:end+2]) // one allocation: fields are substrings
	// Status line: "HTTP/1.1 DDD reason".
	eol := indexCRLF(head)
	line := head[:eol]
	if len(line) < 13 || line[:9] != "HTTP/1.1 " || line[12] != ' ' || !visible(line[13:]) {
		return nil, false, nil
	}
	code := 0
	for _, c := range []byte(line[9:12]) {
		if c < '0' || c > '9' {
			return nil, false, nil
		}
		code = code*10 + int(c-'0')
	}
	if code < 200 || code == http.StatusNoContent || code == http.StatusNotModified {
		return nil, false, nil
	}
	nfields := bytes.Count(buf[eol+2:end+2], crlf)
	vals := make([]string, nfields)
	h := make(http.Header, nfields)
	length := int64(-1)
	rest := head[eol+2:]
	for i := 0; len(rest) > 0; i++ {
		eol := indexCRLF(rest)
		if eol < 0 {
			return nil, false, nil
		}
		field := rest[:eol]
		rest = rest[eol+2:]
		colon := 0
		for colon < len(field) && isToken(field[colon]) {
			colon++
		}
		if colon == 0 || colon == len(field) || field[colon] != ':' {
			return nil, false, nil // empty name, a byte not allowed, obs-fold
		}
		v := trimSpace(field[colon+1:])
		if !visible(v) {
			return nil, false, nil
		}
		k := textproto.CanonicalMIMEHeaderKey(field[:colon])
		switch k {
		case "Transfer-Encoding", "Trailer", "Pragma":
			return nil, false, nil
		case "Connection":
			if !strings.EqualFold(v, "keep-alive") { // close: net/http's job
				return nil, false, nil
			}
		case "Content-Length":
			if length >= 0 || len(v) == 0 || len(v) > 18 {
				return nil, false, nil
			}
			length = 0
			for _, c := range []byte(v) {
				if c < '0' || c > '9' {
					return nil, false, nil
				}
				length = length*10 + int64(c-'0')
			}
		}
		if prior, ok := h[k]; ok {
			h[k] = append(prior, v)
			continue
		}
		vals[i] = v
		h[k] = vals[i : i+1 : i+1]
	}
	if length < 0 {
		return nil, false, nil
	}
	_, _ = br.Discard(end + 4)
	resp := &http.Response{
		Status:        line[9:],
		StatusCode:    code,
		Proto:         "HTTP/1.1",
		ProtoMajor:    1,
		ProtoMinor:    1,
		Header:        h,
		ContentLength: length,
		Request:       req,
		Body:          http.NoBody,
	}
	if length > 0 {
		resp.Body = &leanBody{br: br, left: length}
	}
	return resp, true, nil
}

var (
	crlf  = []byte("\r\n")
	crlf2 = []byte("\r\n\r\n")
)

func indexCRLF(s string) int {
	for i := 0; i+1 < len(s); i++ {
		if s[i] == '\r' && s[i+1] == '\n' {
			return i
		}
	}
	return -1
}

// isToken reports whether c may appear in a field name (RFC 9110 tchar).
func isToken(c byte) bool {
	switch {
	case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		return true
	}
	switch c {
	case '!', '#', '$', '%', '&', '\'', '*', '+', '-', '.', '^', '_', '`', '|', '~':
		return true
	}
	return false
}

// visible reports whether s holds only visible ASCII, spaces and tabs.
func visible[S ~string | ~[]byte](s S) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; (c < ' ' && c != '\t') || c >= 0x7f {
			return false
		}
	}
	return true
}

func trimSpace[S ~string | ~[]byte](s S) S {
	for len(s) > 0 && (s[0] == ' ' || s[0] == '\t') {
		s = s[1:]
	}
	for len(s) > 0 && (s[len(s)-1] == ' ' || s[len(s)-1] == '\t') {
		s = s[:len(s)-1]
	}
	return s
}

// leanBody is a Content-Length body read from a worker's reader, with
// net/http's client body behaviour: io.EOF with the last bytes,
// io.ErrUnexpectedEOF when the connection ends early, the rest drained on
// Close, http.ErrBodyReadAfterClose after it.
type leanBody struct {
	br     *bufio.Reader
	left   int64
	closed bool
	err    error // sticky: the error a read met
}

func (b *leanBody) Read(p []byte) (int, error) {
	if b.closed {
		return 0, http.ErrBodyReadAfterClose
	}
	if b.err != nil {
		return 0, b.err
	}
	if b.left == 0 {
		return 0, io.EOF
	}
	if len(p) == 0 {
		return 0, nil
	}
	if int64(len(p)) > b.left {
		p = p[:b.left]
	}
	n, err := b.br.Read(p)
	b.left -= int64(n)
	switch {
	case err == io.EOF && b.left > 0:
		err = io.ErrUnexpectedEOF
	case err == nil && b.left == 0:
		err = io.EOF
	}
	if err != nil {
		b.err = err
	}
	return n, err
}

func (b *leanBody) Close() error {
	if b.closed {
		return nil
	}
	var err error
	if b.err == nil && b.left > 0 {
		_, err = io.Copy(io.Discard, struct{ io.Reader }{b})
	} else if b.err != nil && b.err != io.EOF && b.err != io.ErrUnexpectedEOF {
		err = b.err // as net/http: an end seen, even early, is not an error here
	}
	b.closed = true
	return err
}
