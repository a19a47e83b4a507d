package leanserver

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// leanWriter is the lean server's http.ResponseWriter. The head and body
// gather in one buffer written at the end (or when it grows past
// flushAt, on Flush, or before a ReadFrom, which lets the connection use
// sendfile). Without a Content-Length from the handler the whole body is
// kept and its length sent, or, after a Flush, the connection closes at
// the end of the body.
type leanWriter struct {
	c        *serverConn
	isHead   bool // the request is a HEAD
	header   http.Header
	status   int
	wrote    bool // head is in out (or sent)
	sent     bool // something went on the wire
	close    bool
	hijacked bool
	noBody   bool
	known    bool // the handler set Content-Length
	out      []byte
	spare    []byte // where the head goes before out (see prependHead)
	// outBox and spareBox are the pool's boxes of out and spare (nil for
	// buffers not from the pool), put back with them by release.
	outBox, spareBox *[]byte
	err              error
	// headCount is the body length a HEAD handler wrote (and was dropped).
	headCount int
}

const flushAt = 128 << 10

func (w *leanWriter) Header() http.Header { return w.header }

func (w *leanWriter) WriteHeader(code int) {
	if w.wrote || w.hijacked {
		return
	}
	if code < 100 || code > 999 {
		panic("serve: invalid WriteHeader code " + strconv.Itoa(code))
	}
	w.status = code
	w.wrote = true
	w.noBody = w.isHead || code == http.StatusNoContent || code == http.StatusNotModified || code < 200
	_, w.known = w.header["Content-Length"]
}

// HeadWriter is implemented by the lean server's response writer: a
// proxy relaying an answer whose head it checked as bytes starts its own
// answer from those bytes, without a header map.
type HeadWriter interface {
	// WriteHeadFields starts the answer with status code and the field
	// lines fields then more (each "Name: value\r\n", well formed, one of
	// them Content-Length, none of them Connection), as WriteHeader would
	// with those fields in Header() (which is not used), "Connection:
	// close" added when the connection ends after the answer. The body
	// is then written with Write. It returns false, having done nothing,
	// when the answer has begun or has no body (HEAD, 1xx, 204, 304):
	// the caller then answers through Header and WriteHeader.
	WriteHeadFields(code int, fields, more []byte) bool
}

// WriteHeadFields implements HeadWriter: the head goes into out at once
// (fields may not outlive the call), and counts as sent for the rest of
// the answer (no head is made from the header map).
func (w *leanWriter) WriteHeadFields(code int, fields, more []byte) bool {
	if w.wrote || w.hijacked || w.isHead || code < 200 || code > 999 ||
		code == http.StatusNoContent || code == http.StatusNotModified {
		return false
	}
	w.status, w.wrote, w.known, w.sent = code, true, true, true
	if w.out == nil {
		w.out, w.outBox = getBuf()
	}
	b := append(w.out, "HTTP/1.1 "...)
	b = append(b, statusLine(code)...)
	b = append(b, "\r\n"...)
	b = append(b, fields...)
	b = append(b, more...)
	if w.close {
		b = append(b, "Connection: close\r\n"...)
	}
	w.out = append(b, "\r\n"...)
	return true
}

// head appends the status line and headers to out.
func (w *leanWriter) head(firstBody []byte) {
	h := w.header
	if w.close && h.Get("Connection") == "" {
		h.Set("Connection", "close")
	} else if h.Get("Connection") == "close" {
		w.close = true
	}
	if _, ok := h["Date"]; !ok {
		h["Date"] = httpDate()
	}
	if _, ok := h["Content-Type"]; !ok && !w.noBody && len(firstBody) > 0 {
		h["Content-Type"] = []string{http.DetectContentType(firstBody)}
	}
	b := append(w.out, "HTTP/1.1 "...)
	b = append(b, statusLine(w.status)...)
	b = append(b, "\r\n"...)
	for k, vs := range h {
		for _, v := range vs {
			b = append(b, k...)
			b = append(b, ": "...)
			b = append(b, v...)
			b = append(b, "\r\n"...)
		}
	}
	w.out = append(b, "\r\n"...)
}

func (w *leanWriter) Write(p []byte) (int, error) {
	if w.hijacked {
		return 0, http.ErrHijacked
	}
	if !w.wrote {
		if _, ok := w.header["Content-Length"]; !ok && w.header.Get("Content-Type") == "" {
			w.header.Set("Content-Type", http.DetectContentType(p))
		}
		w.WriteHeader(http.StatusOK)
	}
	if w.noBody {
		w.headCount += len(p)
		return len(p), nil
	}
	if w.err != nil {
		return 0, w.err
	}
	if w.out == nil {
		w.out, w.outBox = getBuf()
	}
	w.out = append(w.out, p...)
	if w.known && len(w.out) >= flushAt {
		if err := w.send(); err != nil {
			return 0, err
		}
	}
	return len(p), nil
}

// prependHead puts the head before the body gathered in out; it returns
// the body (in spare, which it shares until the next prependHead).
func (w *leanWriter) prependHead() (body []byte) {
	body = w.out
	if w.spare == nil {
		w.spare, w.spareBox = getBuf()
	}
	w.out = w.spare[:0]
	w.head(body)
	w.out = append(w.out, body...)
	w.spare = body[:0]
	w.outBox, w.spareBox = w.spareBox, w.outBox
	return body
}

// bufPool holds the lean writers' buffers (out and spare) between answers:
// a latency keeps many requests waiting, but few answers are written at
// once. Each buffer travels in its box, which goes back with it (no
// allocation to put it back).
var bufPool = sync.Pool{New: func() any { b := make([]byte, 0, 4<<10); return &b }}

func getBuf() ([]byte, *[]byte) {
	box := bufPool.Get().(*[]byte)
	return (*box)[:0], box
}

// release gives the writer's buffers back once the answer is done.
func (w *leanWriter) release() {
	putBuf(w.out, w.outBox)
	putBuf(w.spare, w.spareBox)
	w.out, w.spare, w.outBox, w.spareBox = nil, nil, nil, nil
}

// putBuf puts b back in the pool, in box (a new one if nil), unless it
// grew past 64 kB.
func putBuf(b []byte, box *[]byte) {
	if cap(b) == 0 || cap(b) > 64<<10 {
		return
	}
	if box == nil {
		box = new([]byte)
	}
	*box = b[:0]
	bufPool.Put(box)
}

// send writes the head (if not yet) and the buffered body.
func (w *leanWriter) send() error {
	if !w.sent {
		if !w.known && !w.noBody {
			w.close = true // unknown length: the end of the body is the close
		}
		w.prependHead()
		w.sent = true
	}
	if len(w.out) > 0 && w.err == nil {
		_, w.err = w.c.rw.Write(w.out)
		w.out = w.out[:0]
	}
	return w.err
}

// Flush sends what is buffered (http.Flusher, for slow bodies).
func (w *leanWriter) Flush() { _ = w.FlushError() }

// FlushError is Flush reporting the write error (for ResponseController).
func (w *leanWriter) FlushError() error {
	if !w.wrote {
		w.WriteHeader(http.StatusOK)
	}
	return w.send()
}

// ReadFrom sends the buffered head, then copies r to the connection, which
// uses sendfile for a file.
func (w *leanWriter) ReadFrom(r io.Reader) (int64, error) {
	if !w.wrote {
		w.WriteHeader(http.StatusOK)
	}
	if w.noBody || !w.known {
		return io.Copy(struct{ io.Writer }{w}, r)
	}
	if lr, ok := r.(*io.LimitedReader); ok {
		if f, ok := lr.R.(*os.File); ok {
			if n, ok, err := w.sendFile(f, -1, lr.N); ok {
				lr.N -= n
				return n, err
			}
		}
	}
	if err := w.send(); err != nil {
		return 0, err
	}
	n, err := io.Copy(w.c.nc, r)
	if err != nil {
		w.err = err
	}
	return n, err
}

// SendFileAt sends n bytes of f from offset off as the body, after the
// head, with sendfile(2), without using or moving f's own offset: answers
// can share one handle of a file, with no seek between them. ok is false
// when it cannot (a HEAD or bodiless status, no Content-Length from the
// handler, something already sent, not a raw socket): nothing was sent,
// and the handler writes the body another way.
func (w *leanWriter) SendFileAt(f *os.File, off, n int64) (sent int64, ok bool, err error) {
	if !w.wrote {
		w.WriteHeader(http.StatusOK)
	}
	if w.noBody || !w.known || off < 0 {
		return 0, false, nil
	}
	return w.sendFile(f, off, n)
}

// sendFile sends the head and n bytes of f from off (from f's own offset
// when off < 0) in one poller call; ok is false when it could not, and
// then nothing was sent and the answer is as it was.
func (w *leanWriter) sendFile(f *os.File, off, n int64) (sent int64, ok bool, err error) {
	if w.sent || w.c.raw == nil || w.err != nil {
		return 0, false, nil
	}
	body := w.prependHead()
	if off < 0 {
		sent, ok, err = w.c.raw.SendFile(w.out, f, n)
	} else {
		sent, ok, err = w.c.raw.SendFileAt(w.out, f, off, n)
	}
	if !ok {
		w.out = w.out[:0] // not sent: the head is made again when sent
		w.out = append(w.out, body...)
		return 0, false, nil
	}
	w.sent = true
	w.out = w.out[:0]
	w.err = err
	return sent, true, err
}

// Hijack hands the connection to the handler (for close and reset faults).
func (w *leanWriter) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	if w.sent {
		return nil, nil, http.ErrHijacked
	}
	w.hijacked = true
	return w.c.nc, bufio.NewReadWriter(bufio.NewReader(w.c.nc), bufio.NewWriter(w.c.nc)), nil
}

// finish completes the answer after the handler returned.
func (w *leanWriter) finish() error {
	if !w.wrote {
		w.WriteHeader(http.StatusOK)
	}
	if !w.sent && !w.known && !w.noBody {
		w.header["Content-Length"] = []string{strconv.Itoa(len(w.out))}
		w.known = true
		w.prependHead()
		w.sent = true
	} else if !w.sent && !w.known && w.isHead && w.headCount > 0 {
		w.header["Content-Length"] = []string{strconv.Itoa(w.headCount)} // as net/http does
	}
	return w.send()
}

// statusLines holds the status lines ("200 OK") of the codes with a
// text, made once instead of per answer.
var statusLines = func() (l [600]string) {
	for code := range l {
		if t := http.StatusText(code); t != "" {
			l[code] = strconv.Itoa(code) + " " + t
		}
	}
	return l
}()

func statusLine(code int) string {
	if code < len(statusLines) && statusLines[code] != "" {
		return statusLines[code]
	}
	t := http.StatusText(code)
	if t == "" {
		t = "status code " + strconv.Itoa(code)
	}
	return strconv.Itoa(code) + " " + t
}

// dateCache holds the Date header value, remade once a second.
var dateCache atomic.Pointer[dateEntry]

type dateEntry struct {
	sec int64
	v   []string // the header's value, shared by the answers of a second
}

// httpDate returns the Date header's value for now. Answers share the
// slice: its capacity is 1, so an append by a handler copies it.
func httpDate() []string {
	now := time.Now()
	if d := dateCache.Load(); d != nil && d.sec == now.Unix() {
		return d.v
	}
	d := &dateEntry{sec: now.Unix(), v: []string{now.UTC().Format(http.TimeFormat)}}
	dateCache.Store(d)
	return d.v
}
