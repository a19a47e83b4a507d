package proxy

import (
	"bytes"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"strconv"
	"sync/atomic"
	"time"
)

// Defaults for reading request bodies before a pool worker is taken (see
// Options.ClientBodyTimeout and Options.MaxRequestBody): nginx's
// client_body_timeout and client_max_body_size.
const (
	DefaultClientBodyTimeout = 60 * time.Second
	DefaultMaxRequestBody    = 1 << 20
)

// OriginClientBody labels the answers given before routing because the
// request body was too slow (408) or too large (413).
const OriginClientBody = "client_body"

// bodyRefusals counts the requests answered before routing because of
// their body.
type bodyRefusals struct {
	slow, large, bad, gone atomic.Uint64
}

// readBody reads r's whole body into memory before any pool worker is
// checked out, as nginx buffers request bodies before it picks an upstream:
// a client trickling its body in costs its own connection, never a worker.
// Each read must bring bytes within the client body timeout (the time
// between two reads, as nginx's client_body_timeout), else the request is
// answered 408; a body beyond the size bound is answered 413; both close
// the connection. It reports whether r may go on, its body then replayable
// from memory with its length known.
func (p *Proxy) readBody(w http.ResponseWriter, r *http.Request) bool {
	if r.Body == nil || r.Body == http.NoBody || r.ContentLength == 0 {
		return true
	}
	limit := p.opts.MaxRequestBody
	if r.ContentLength > limit {
		p.refuseBody(w, http.StatusRequestEntityTooLarge, "the request body ("+strconv.FormatInt(r.ContentLength, 10)+" bytes) is larger than "+strconv.FormatInt(limit, 10)+" bytes")
		return false
	}
	rc := http.NewResponseController(w)
	timeout := p.opts.ClientBodyTimeout
	var buf bytes.Buffer
	if r.ContentLength > 0 {
		buf.Grow(int(r.ContentLength))
	}
	bp := bufPool.Get().(*[]byte)
	defer bufPool.Put(bp)
	chunk := *bp
	var err error
	for {
		_ = rc.SetReadDeadline(time.Now().Add(timeout))
		var n int
		n, err = r.Body.Read(chunk)
		buf.Write(chunk[:n])
		if int64(buf.Len()) > limit {
			p.refuseBody(w, http.StatusRequestEntityTooLarge, "the request body is larger than "+strconv.FormatInt(limit, 10)+" bytes")
			return false
		}
		if err != nil {
			break
		}
	}
	if errors.Is(err, io.EOF) {
		_ = rc.SetReadDeadline(time.Time{})
		r.Body = io.NopCloser(bytes.NewReader(buf.Bytes()))
		r.ContentLength = int64(buf.Len())
		r.TransferEncoding = nil
		return true
	}
	if errors.Is(err, os.ErrDeadlineExceeded) || isTimeout(err) {
		p.refuseBody(w, http.StatusRequestTimeout, "no byte of the request body for "+timeout.String())
		return false
	}
	var ne net.Error
	if !errors.As(err, &ne) && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, net.ErrClosed) {
		// The client's framing is wrong (a malformed chunked body): 400,
		// and the connection closes, its framing no longer trusted.
		p.bodyRefused.bad.Add(1)
		h := w.Header()
		h.Set(HeaderOrigin, OriginBadRequest)
		h.Set("Connection", "close")
		http.Error(w, "loadlab proxy: malformed request body", http.StatusBadRequest)
		return false
	}
	p.bodyRefused.gone.Add(1) // the client went away while sending its body
	return false
}

// refuseBody answers a request refused for its body and closes the
// connection (the rest of the body is not read).
func (p *Proxy) refuseBody(w http.ResponseWriter, status int, why string) {
	if status == http.StatusRequestTimeout {
		p.bodyRefused.slow.Add(1)
	} else {
		p.bodyRefused.large.Add(1)
	}
	h := w.Header()
	h.Set(HeaderOrigin, OriginClientBody)
	h.Set("Connection", "close")
	http.Error(w, "loadlab proxy: "+why, status)
}
