package attack

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"strconv"

	"github.com/loadlab/loadlab/internal/results"
	"github.com/loadlab/loadlab/internal/targets"
)

// exchange writes req and reads one response. It returns the Location of a
// redirect to follow, if any.
func (lw *leanWorker) exchange(w *worker, c *leanConn, t *targets.Target, req []byte, r *results.Result) ([]byte, error) {
	reused := c.used
	c.used = true
	if err := c.write(req); err != nil {
		if reused {
			return nil, errStale
		}
		return nil, err
	}
	var code int
	var line []byte
	var err error
	for {
		line, err = c.br.ReadSlice('\n')
		if err != nil {
			if reused && c.br.Buffered() == 0 && len(line) == 0 && (errors.Is(err, io.EOF) || isReset(err)) {
				return nil, errStale
			}
			return nil, lw.readErr(err, "headers")
		}
		if len(line) < 12 || !bytes.HasPrefix(line, []byte("HTTP/1.")) || line[8] != ' ' {
			return nil, fmt.Errorf("malformed HTTP response %q", bytes.TrimSpace(line))
		}
		code, err = strconv.Atoi(string(line[9:12]))
		if err != nil || code < 100 {
			return nil, fmt.Errorf("malformed HTTP status code %q", line[9:12])
		}
		if code >= 200 || code == 101 {
			break
		}
		if err := skipHeaders(c.br); err != nil { // 1xx interim response
			return nil, lw.readErr(err, "headers")
		}
	}
	r.Code = uint16(code)
	if code < 200 || code >= 400 {
		r.Error = lw.statusText(bytes.TrimRight(line[9:], "\r\n"))
	} else {
		r.Error = ""
	}
	// headers
	var contentLength int64 = -1
	chunked, closeConn, gzipped := false, false, false
	var location []byte
	follow := lw.l.opts.Redirects >= 0 && (code == 301 || code == 302 || code == 303 || code == 307 || code == 308)
	for {
		h, err := c.br.ReadSlice('\n')
		if err != nil {
			return nil, lw.readErr(err, "headers")
		}
		h = bytes.TrimRight(h, "\r\n")
		if len(h) == 0 {
			break
		}
		k, v, ok := bytes.Cut(h, []byte(":"))
		if !ok {
			continue
		}
		v = bytes.TrimSpace(v)
		switch {
		case bytes.EqualFold(k, []byte("Content-Length")):
			n, err := strconv.ParseInt(string(v), 10, 64)
			if err != nil || n < 0 {
				return nil, fmt.Errorf("bad Content-Length %q", v)
			}
			contentLength = n
		case bytes.EqualFold(k, []byte("Transfer-Encoding")):
			chunked = bytes.Contains(bytes.ToLower(v), []byte("chunked"))
		case bytes.EqualFold(k, []byte("Content-Encoding")):
			gzipped = bytes.EqualFold(v, []byte("gzip"))
		case bytes.EqualFold(k, []byte("Connection")):
			closeConn = bytes.EqualFold(v, []byte("close"))
		case follow && bytes.EqualFold(k, []byte("Location")):
			location = append([]byte(nil), v...)
		}
	}
	if line[7] == '0' { // HTTP/1.0 closes unless told otherwise; keep it simple
		closeConn = true
	}
	noBody := t.Method == "HEAD" || code == 204 || code == 304
	var n int64
	var kept []byte
	gzipped = gzipped && !noBody && lw.autoGzip(t)
	switch {
	case noBody:
	case gzipped:
		n, kept, err = w.readGzip(c.br, chunked, contentLength)
		closeConn = closeConn || (!chunked && contentLength < 0)
	case chunked:
		n, kept, err = w.readChunked(c.br)
	case contentLength >= 0:
		n, kept, err = w.readN(c.br, contentLength)
	default:
		n, kept, err = w.readBody(c.br)
		closeConn = true
	}
	r.BytesIn += uint64(n)
	if kept != nil {
		r.Body = kept
	}
	if _, ok := err.(gzipErr); ok {
		return nil, err
	}
	if err != nil {
		return nil, lw.readErr(err, "body")
	}
	if closeConn {
		return location, errCloseAfter
	}
	return location, nil
}

// errCloseAfter asks roundTrip to close a connection after a good response.
var errCloseAfter = errors.New("close")

func skipHeaders(br *bufio.Reader) error {
	for {
		h, err := br.ReadSlice('\n')
		if err != nil {
			return err
		}
		if len(bytes.TrimRight(h, "\r\n")) == 0 {
			return nil
		}
	}
}

// readN reads exactly n body bytes.
func (w *worker) readN(br *bufio.Reader, n int64) (int64, []byte, error) {
	limit := w.keepLimit()
	if limit == 0 {
		var got int64
		for got < n {
			d, err := br.Discard(int(min(n-got, 1<<30)))
			got += int64(d)
			if err != nil {
				return got, nil, err
			}
		}
		return got, nil, nil
	}
	return w.readBody(io.LimitReader(br, n))
}

// readChunked reads a chunked body (and its trailers).
func (w *worker) readChunked(br *bufio.Reader) (int64, []byte, error) {
	var total int64
	var kept []byte
	for {
		line, err := br.ReadSlice('\n')
		if err != nil {
			return total, kept, err
		}
		line = bytes.TrimRight(line, "\r\n")
		if i := bytes.IndexByte(line, ';'); i >= 0 {
			line = line[:i]
		}
		size, err := strconv.ParseInt(string(bytes.TrimSpace(line)), 16, 64)
		if err != nil || size < 0 {
			return total, kept, fmt.Errorf("malformed chunk size %q", line)
		}
		if size == 0 {
			return total, kept, skipHeaders(br)
		}
		n, k, err := w.readN(br, size)
		total += n
		if k != nil && (w.keepLimit() < 0 || int64(len(kept)) < w.keepLimit()) {
			room := len(k)
			if w.keepLimit() > 0 {
				room = min(room, int(w.keepLimit())-len(kept))
			}
			kept = append(kept, k[:room]...)
		}
		if err != nil {
			return total, kept, err
		}
		if _, err := br.Discard(2); err != nil { // CRLF after the chunk
			return total, kept, err
		}
	}
}

func (lw *leanWorker) statusText(s []byte) string {
	if v, ok := lw.status[string(s)]; ok {
		return v
	}
	v := string(s)
	if len(lw.status) < 256 {
		lw.status[v] = v
	}
	return v
}

// timeoutErr mirrors net/http's wording for a request that ran out of time.
type timeoutErr struct{ while string }

func (e timeoutErr) Error() string {
	if e.while == "body" {
		return "context deadline exceeded (Client.Timeout or context cancellation while reading body)"
	}
	return "context deadline exceeded (Client.Timeout exceeded while awaiting headers)"
}

func (lw *leanWorker) readErr(err error, while string) error {
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return timeoutErr{while}
	}
	if errors.Is(err, io.EOF) {
		return io.EOF
	}
	return err
}

// errorText formats err as net/http's client would: Method "URL": err.
func (lw *leanWorker) errorText(t *targets.Target, err error) string {
	if _, ok := err.(gzipErr); ok {
		return err.Error() // net/http reports it from the body's Read, unwrapped
	}
	op := t.Method[:1] + lowerASCII(t.Method[1:])
	return explain(&url.Error{Op: op, URL: t.Source(), Err: err})
}

func lowerASCII(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

func isReset(err error) bool {
	var oe *net.OpError
	return errors.As(err, &oe) && !oe.Timeout()
}
