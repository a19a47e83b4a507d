package pool

import (
	"bufio"
	"bytes"
	"io"
	"net/http"
	"net/textproto"
	"strings"

	"github.com/loadlab/loadlab/internal/httpsyntax"
)

// readLeanResponse reads a response head the way http.ReadResponse would,
// without its line reader and transfer logic, when the head is entirely in
// br once the first bytes arrived and is of the plain kind
// (httpsyntax.ScanAnswer), of a final status other than 204 and 304, for
// a request other than HEAD. It reports false, having consumed nothing,
// for any other head: the caller then calls http.ReadResponse on the same
// reader. An error is one reading the first bytes, worded as
// http.ReadResponse words it. FuzzLeanResponse checks that every head it
// accepts reads the same as through http.ReadResponse.
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
	a, ok := httpsyntax.ScanAnswer(buf)
	if !ok || a.Status < 200 || a.Status == http.StatusNoContent || a.Status == http.StatusNotModified {
		return nil, false, nil
	}
	// One allocation for the status and the fields: each is a substring.
	head := string(buf[9 : a.Size-2])
	fields := head[len(a.Line)-9+2:]
	nfields := bytes.Count(a.Fields, crlf)
	vals := make([]string, nfields)
	h := make(http.Header, nfields)
	for i := 0; len(fields) > 0; i++ {
		eol := strings.Index(fields, "\r\n")
		field := fields[:eol]
		fields = fields[eol+2:]
		colon := strings.IndexByte(field, ':')
		k := textproto.CanonicalMIMEHeaderKey(field[:colon])
		v := httpsyntax.TrimOWS(field[colon+1:])
		if prior, ok := h[k]; ok {
			h[k] = append(prior, v)
			continue
		}
		vals[i] = v
		h[k] = vals[i : i+1 : i+1]
	}
	_, _ = br.Discard(a.Size)
	resp := &http.Response{
		Status:        head[:len(a.Line)-9],
		StatusCode:    a.Status,
		Proto:         "HTTP/1.1",
		ProtoMajor:    1,
		ProtoMinor:    1,
		Header:        h,
		ContentLength: a.Length,
		Request:       req,
		Body:          http.NoBody,
	}
	if a.Length > 0 {
		resp.Body = &leanBody{br: br, left: a.Length}
	}
	return resp, true, nil
}

var crlf = []byte("\r\n")

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
