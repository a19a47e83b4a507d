package http1

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"

	"github.com/loadlab/loadlab/internal/httpsyntax"
	"github.com/loadlab/loadlab/internal/targets"
)

// exchange writes req and reads one response. It returns the Location of a
// redirect to follow, if any.
func (lw *leanWorker) exchange(w *Session, c *leanConn, t *targets.Target, req []byte, r *Exchange) ([]byte, error) {
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
	budget := maxResponseHead
	for {
		line, err = c.br.ReadSlice('\n')
		if err != nil {
			if reused && c.br.Buffered() == 0 && len(line) == 0 && (errors.Is(err, io.EOF) || isReset(err)) {
				return nil, errStale
			}
			return nil, lw.readErr(err, "headers")
		}
		budget -= len(line)
		code = statusCode(line)
		if code < 0 {
			return nil, fmt.Errorf("malformed HTTP response %q", bytes.TrimSpace(line))
		}
		if code < 100 {
			return nil, fmt.Errorf("malformed HTTP status code %q", line[9:12])
		}
		if code >= 200 || code == 101 {
			break
		}
		if err := readFields(c.br, &budget, nil); err != nil { // 1xx interim response
			return nil, lw.readErr(err, "headers")
		}
	}
	r.Code = uint16(code)
	if code < 200 || code >= 400 {
		r.Error = lw.statusText(bytes.TrimRight(line[9:], "\r\n"))
	} else {
		r.Error = ""
	}
	http10 := line[7] == '0'
	h := respFields{follow: lw.l.opts.Redirects >= 0 && (code == 301 || code == 302 || code == 303 || code == 307 || code == 308)}
	if w.KeepFields {
		h.keep, h.fields = true, r.Fields[:0]
	}
	err = readFields(c.br, &budget, &h)
	if w.KeepFields {
		r.Fields = h.fields
	}
	if err != nil {
		return nil, lw.readErr(err, "headers")
	}
	// As net/http: Transfer-Encoding is ignored in HTTP/1.0 and must be
	// exactly one "chunked" otherwise.
	chunked := false
	if !http10 && h.codings > 0 {
		if h.codings > 1 || !h.chunked {
			return nil, fmt.Errorf("unsupported transfer encoding")
		}
		chunked = true
	}
	contentLength, closeConn, location := h.length, h.close, h.location
	if http10 || code == 101 { // HTTP/1.0 closes unless told otherwise; keep it simple. 101: no longer HTTP
		closeConn = true
	}
	noBody := t.Method == "HEAD" || code == 204 || code == 304 || code == 101
	var n int64
	var kept []byte
	gzipped := h.encoding == 1 && !noBody && lw.autoGzip(t)
	switch {
	case code == 101 && h.upgrade == 3:
		// As net/http: a protocol switch is followed by the new
		// protocol's bytes, read to the close; another 101 has no body.
		n, kept, err = w.readBody(c.br)
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

// readN reads exactly n body bytes.
func (w *Session) readN(br *bufio.Reader, n int64) (int64, []byte, error) {
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
	got, kept, err := w.readBody(io.LimitReader(br, n))
	if err == nil && got < n {
		err = io.ErrUnexpectedEOF
	}
	return got, kept, err
}

// readChunked reads a chunked body and its trailers, as net/http does:
// chunk lines end in CRLF, data is followed by CRLF, and at most 16 KiB
// more of sizes and extensions than 16 bytes per chunk plus twice its data.
func (w *Session) readChunked(br *bufio.Reader) (int64, []byte, error) {
	var total, excess int64
	var kept []byte
	for {
		line, err := readChunkLine(br)
		if err != nil {
			return total, kept, err
		}
		excess += int64(len(line)) + 2
		size, ok := httpsyntax.ChunkSize(line)
		if !ok {
			return total, kept, fmt.Errorf("malformed chunk size %q", line)
		}
		excess = max(excess-16-2*size, 0)
		if excess > 16<<10 {
			return total, kept, errChunkExcess
		}
		if size == 0 {
			return total, kept, readTrailer(br)
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
		crlf, err := br.Peek(2)
		if err != nil {
			return total, kept, err
		}
		if crlf[0] != '\r' || crlf[1] != '\n' {
			return total, kept, errChunkLine
		}
		_, _ = br.Discard(2)
	}
}

// readTrailer reads what follows a chunked body's last chunk as
// net/http's body.readTrailer does: CRLF alone (the common case, no
// trailers), or trailer fields only when a CRLF CRLF that ends them is
// already in sight; a bare LF, or a stream that ends, is an error, never
// the end of the answer.
func readTrailer(br *bufio.Reader) error {
	buf, err := br.Peek(2)
	if len(buf) == 2 && buf[0] == '\r' && buf[1] == '\n' {
		_, _ = br.Discard(2)
		return nil
	}
	if len(buf) < 2 {
		return errTrailerEOF
	}
	if err != nil {
		return err
	}
	if !upcomingDoubleCRLF(br) {
		return errLongTrailer
	}
	budget := maxResponseHead
	return readFields(br, &budget, nil)
}

// upcomingDoubleCRLF reports whether the reader's buffer, filled as far
// as it goes, holds a CRLF CRLF (net/http's seeUpcomingDoubleCRLF).
func upcomingDoubleCRLF(br *bufio.Reader) bool {
	for peek := 4; ; peek++ {
		buf, err := br.Peek(peek)
		if bytes.HasSuffix(buf, []byte("\r\n\r\n")) {
			return true
		}
		if err != nil {
			return false
		}
	}
}

var (
	errTrailerEOF  = errors.New("http: unexpected EOF reading trailer")
	errLongTrailer = errors.New("http: suspiciously long trailer after chunked body")
)

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
