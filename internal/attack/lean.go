package attack

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"runtime"
	"strconv"
	"sync"
	"time"

	"github.com/loadlab/loadlab/internal/results"
	"github.com/loadlab/loadlab/internal/targets"
)

// leanClient is a minimal HTTP/1.1 keep-alive client for plain http://
// targets. A worker takes an idle connection from a per-host LIFO pool (or
// dials one), writes the request in one system call, parses the response in
// place and puts the connection back: no goroutine, channel or allocation
// per request. net/http serves everything else.
type leanClient struct {
	opts    *Options
	dialer  net.Dialer
	maxIdle int // idle connections kept per host
	mu      sync.Mutex
	idle    map[string][]*leanConn // by host:port, most recently used last
	live    map[*leanConn]struct{} // every open connection, to abort them on hard stop
}

func newLeanClient(o *Options) *leanClient {
	maxIdle := o.Connections
	if maxIdle <= 0 {
		maxIdle = 10000
	}
	return &leanClient{
		opts:    o,
		dialer:  net.Dialer{Timeout: o.Timeout, KeepAlive: 30 * time.Second}, // no LocalAddr: no bind() before connect()
		maxIdle: maxIdle,
		idle:    map[string][]*leanConn{},
		live:    map[*leanConn]struct{}{},
	}
}

// get returns an idle connection to addr, or dials a new one.
func (l *leanClient) get(ctx context.Context, addr string) (*leanConn, error) {
	l.mu.Lock()
	if cs := l.idle[addr]; len(cs) > 0 {
		c := cs[len(cs)-1]
		cs[len(cs)-1] = nil
		l.idle[addr] = cs[:len(cs)-1]
		l.mu.Unlock()
		return c, nil
	}
	l.mu.Unlock()
	nc, err := l.dialer.DialContext(ctx, "tcp", addr)
	if err != nil {
		return nil, err
	}
	c := &leanConn{c: nc, br: bufio.NewReaderSize(nc, 8<<10)}
	l.mu.Lock()
	l.live[c] = struct{}{}
	l.mu.Unlock()
	return c, nil
}

// put returns a healthy connection to the idle pool.
func (l *leanClient) put(addr string, c *leanConn) {
	l.mu.Lock()
	if cs := l.idle[addr]; len(cs) < l.maxIdle {
		l.idle[addr] = append(cs, c)
		l.mu.Unlock()
		return
	}
	l.mu.Unlock()
	l.discard(c)
}

// discard closes a connection.
func (l *leanClient) discard(c *leanConn) {
	_ = c.c.Close()
	l.mu.Lock()
	delete(l.live, c)
	l.mu.Unlock()
}

// closeIdle closes every idle connection (at the end of an attack).
func (l *leanClient) closeIdle() {
	l.mu.Lock()
	idle := l.idle
	l.idle = map[string][]*leanConn{}
	l.mu.Unlock()
	for _, cs := range idle {
		for _, c := range cs {
			l.discard(c)
		}
	}
}

// leanUsable reports whether the lean client may serve the attack's plain
// http:// requests with these options.
func (o *Options) leanUsable() bool {
	return o.Client != "std" && !o.H2C && o.MaxConnections == 0
}

// abortAll makes every in-flight read or write fail now.
func (l *leanClient) abortAll() {
	l.mu.Lock()
	defer l.mu.Unlock()
	for c := range l.live {
		_ = c.c.SetDeadline(time.Unix(1, 0))
	}
}

// deadlineSlack is how much later than Timeout a lean request may time
// out: min(Timeout/8, 1s).
func deadlineSlack(timeout time.Duration) time.Duration { return min(timeout/8, time.Second) }

type leanConn struct {
	c        net.Conn
	br       *bufio.Reader
	deadline time.Time // current read/write deadline
	used     bool      // has served a request: a failure before any response byte may be a stale keep-alive
}

// leanWorker is one worker's lean-client state.
type leanWorker struct {
	l      *leanClient
	wbuf   []byte
	static map[*targets.Target]*leanTarget
	status map[string]string // interned status lines
	yield  bool              // yield between write and read (unpaced attacks)
}

// leanTarget is the precomputed request of a target without templates.
type leanTarget struct {
	ok   bool   // false: not for the lean client
	addr string // host:port to dial
	req  []byte // the whole request, head and body
	body int    // body length
}

func (l *leanClient) newWorker() *leanWorker {
	return &leanWorker{l: l, static: map[*targets.Target]*leanTarget{}, status: map[string]string{}}
}

// maxStaticCache bounds the per-worker cache of precomputed requests (lazy
// target streams produce new targets without end).
const maxStaticCache = 4096

// do sends t if it is a plain http:// request; it returns false, having
// done nothing, when net/http must handle it.
func (lw *leanWorker) do(w *worker, t *targets.Target, seq uint64, r *results.Result) bool {
	var addr string
	var req []byte
	var bodyLen int
	if t.URL.Static() && t.StaticHeader() != nil && (t.Body == nil || t.Body.Static()) {
		lt := lw.static[t]
		if lt == nil {
			lt = lw.prepare(t)
			if len(lw.static) >= maxStaticCache {
				clear(lw.static)
			}
			lw.static[t] = lt
		}
		if !lt.ok {
			return false
		}
		addr, req, bodyLen = lt.addr, lt.req, lt.body
	} else {
		w.url = t.URL.Append(w.url[:0], w.rng, seq)
		host, path, ok := splitHTTPURL(w.url)
		if !ok {
			return false
		}
		lw.wbuf = lw.appendHead(lw.wbuf[:0], w, t, seq, host, path)
		start := len(lw.wbuf)
		if t.Body != nil {
			lw.wbuf = t.Body.Append(lw.wbuf, w.rng, seq)
		}
		bodyLen = len(lw.wbuf) - start
		lw.wbuf = fixContentLength(lw.wbuf, start, bodyLen, t.Body != nil)
		req = lw.wbuf
		addr = hostAddr(host)
	}
	r.BytesOut = uint64(bodyLen)
	lw.roundTrip(w, t, addr, req, r, 0)
	return true
}

// prepare builds the request bytes of a static target.
func (lw *leanWorker) prepare(t *targets.Target) *leanTarget {
	u := t.StaticURL()
	if u == nil || u.Scheme != "http" || u.User != nil {
		return &leanTarget{}
	}
	host, path, ok := splitHTTPURL([]byte(t.URL.Text()))
	if !ok {
		return &leanTarget{}
	}
	b := lw.appendHead(nil, nil, t, 0, host, path)
	start := len(b)
	if t.Body != nil {
		b = append(b, t.Body.Text()...)
	}
	n := len(b) - start
	b = fixContentLength(b, start, n, t.Body != nil)
	return &leanTarget{ok: true, addr: hostAddr(host), req: b, body: n}
}

// clPlaceholder is overwritten with the body length once it is known.
const clPlaceholder = "Content-Length: 0000000000\r\n\r\n"

// appendHead appends the request line and headers, ending with the
// Content-Length placeholder and the blank line. w is nil for static
// targets (no rendering needed).
func (lw *leanWorker) appendHead(b []byte, w *worker, t *targets.Target, seq uint64, host, path []byte) []byte {
	b = append(b, t.Method...)
	b = append(b, ' ')
	b = append(b, path...)
	b = append(b, " HTTP/1.1\r\n"...)
	hasHost := false
	for _, hd := range t.Header {
		if hd.Name == "Host" {
			hasHost = true
		}
		b = append(b, hd.Name...)
		b = append(b, ": "...)
		if hd.Value.Static() || w == nil {
			b = append(b, hd.Value.Text()...)
		} else {
			b = hd.Value.Append(b, w.rng, seq)
		}
		b = append(b, "\r\n"...)
	}
	for k, vs := range lw.l.opts.Header {
		if targetHas(t, k) {
			continue
		}
		for _, v := range vs {
			b = append(b, k...)
			b = append(b, ": "...)
			b = append(b, v...)
			b = append(b, "\r\n"...)
		}
	}
	if !hasHost {
		b = append(b, "Host: "...)
		b = append(b, host...)
		b = append(b, "\r\n"...)
	}
	if !lw.l.opts.KeepAlive {
		b = append(b, "Connection: close\r\n"...)
	}
	b = append(b, clPlaceholder...)
	return b
}

func targetHas(t *targets.Target, name string) bool {
	for _, h := range t.Header {
		if h.Name == name {
			return true
		}
	}
	return false
}

// fixContentLength writes n into the placeholder just before start, or
// removes the header when the target has no body.
func fixContentLength(b []byte, start, n int, hasBody bool) []byte {
	ph := start - len(clPlaceholder)
	if !hasBody {
		const line = len("Content-Length: 0000000000\r\n")
		copy(b[ph:], b[ph+line:])
		return b[:len(b)-line]
	}
	digits := b[ph+len("Content-Length: ") : ph+len("Content-Length: ")+10]
	s := strconv.AppendInt(make([]byte, 0, 10), int64(n), 10)
	// right-align would leave zeros; instead shift the tail left
	copy(digits, s)
	gap := 10 - len(s)
	if gap > 0 {
		copy(b[ph+len("Content-Length: ")+len(s):], b[ph+len("Content-Length: ")+10:])
		b = b[:len(b)-gap]
	}
	return b
}

// splitHTTPURL splits an http:// URL into host and request path (with the
// query, without a fragment). ok is false for other schemes.
func splitHTTPURL(u []byte) (host, path []byte, ok bool) {
	const p = "http://"
	if len(u) < len(p) || !bytes.EqualFold(u[:len(p)], []byte(p)) {
		return nil, nil, false
	}
	rest := u[len(p):]
	if i := bytes.IndexByte(rest, '#'); i >= 0 {
		rest = rest[:i]
	}
	i := bytes.IndexAny(rest, "/?")
	if i < 0 {
		return rest, []byte("/"), len(rest) > 0 && bytes.IndexByte(rest, '@') < 0
	}
	host, path = rest[:i], rest[i:]
	if path[0] == '?' {
		path = append([]byte("/"), path...)
	}
	return host, path, len(host) > 0 && bytes.IndexByte(host, '@') < 0
}

// hostAddr adds the default port 80 when host has none.
func hostAddr(host []byte) string {
	h := string(host)
	if _, _, err := net.SplitHostPort(h); err == nil {
		return h
	}
	if len(h) > 0 && h[0] == '[' { // [::1]
		return h + ":80"
	}
	return net.JoinHostPort(h, "80")
}

// errStale marks a failure on a reused connection before any response byte.
var errStale = errors.New("stale keep-alive connection")

// roundTrip sends req on the worker's connection to addr and reads the
// response into r, following redirects as Options.Redirects says.
func (lw *leanWorker) roundTrip(w *worker, t *targets.Target, addr string, req []byte, r *results.Result, hops int) {
	o := lw.l.opts
	if hops == 0 {
		w.sentNow(r)
	}
	var err error
	for {
		var c *leanConn
		c, err = lw.l.get(w.a.reqCtx, addr)
		if err != nil {
			break
		}
		if o.Timeout > 0 && c.deadline.Before(r.Sent.Add(o.Timeout)) {
			// Re-arm the deadline only when it is too close: a request may
			// time out up to deadlineSlack late, but the timer is not
			// touched on every request.
			c.deadline = r.Sent.Add(o.Timeout + deadlineSlack(o.Timeout))
			_ = c.c.SetDeadline(c.deadline)
		}
		var loc []byte
		loc, err = lw.exchange(w, c, t, req, r)
		if errors.Is(err, errStale) {
			// The server closed this idle connection: retry on the next
			// idle one, at last on a fresh one (whose failures are not stale).
			lw.l.discard(c)
			continue
		}
		if err != nil || !o.KeepAlive {
			lw.l.discard(c)
		} else {
			lw.l.put(addr, c)
		}
		if err == errCloseAfter {
			err = nil
		}
		if err == nil && loc != nil {
			r.Latency = 0
			lw.redirect(w, t, addr, req, loc, r, hops)
			return
		}
		break
	}
	r.Latency = time.Since(r.Sent)
	if err != nil {
		r.Code = 0
		r.Error = lw.errorText(t, err)
	}
}

// exchange writes req and reads one response. It returns the Location of a
// redirect to follow, if any.
func (lw *leanWorker) exchange(w *worker, c *leanConn, t *targets.Target, req []byte, r *results.Result) ([]byte, error) {
	reused := c.used
	c.used = true
	if _, err := c.c.Write(req); err != nil {
		if reused {
			return nil, errStale
		}
		return nil, err
	}
	if lw.yield {
		// Unpaced: let the other workers write their requests before
		// reading; the response has then often arrived and the first read
		// succeeds instead of costing a system call that returns EAGAIN.
		// (Not when paced: yielded goroutines go to the global run queue
		// and would wait behind the pacer's hand-offs.)
		runtime.Gosched()
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
	chunked, closeConn := false, false
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
	switch {
	case noBody:
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

// redirect follows a Location through the lean client (http:// only).
func (lw *leanWorker) redirect(w *worker, t *targets.Target, addr string, req []byte, loc []byte, r *results.Result, hops int) {
	o := lw.l.opts
	fail := func(err error) { // worded as net/http words it: with the Location
		r.Latency = time.Since(r.Sent)
		r.Code, r.BytesIn, r.Body = 0, 0, nil
		op := t.Method[:1] + lowerASCII(t.Method[1:])
		r.Error = explain(&url.Error{Op: op, URL: string(loc), Err: err})
	}
	if hops+1 > o.Redirects {
		fail(fmt.Errorf("stopped after %d redirects", o.Redirects))
		return
	}
	host, path, _ := splitHTTPURL(req2URL(addr, req))
	base := &url.URL{Scheme: "http", Host: string(host), Path: string(path)}
	if p, err := url.Parse(string(path)); err == nil {
		base.Path, base.RawQuery = p.Path, p.RawQuery
	}
	next, err := base.Parse(string(loc))
	if err != nil || next.Scheme != "http" {
		fail(fmt.Errorf("redirect to %q: the lean HTTP client follows only http:// redirects (use -client std)", loc))
		return
	}
	method := t.Method
	code := r.Code
	keepBody := code == 307 || code == 308
	if !keepBody && method != "HEAD" {
		method = "GET"
	}
	var b []byte
	b = append(b, method...)
	b = append(b, ' ')
	b = append(b, next.RequestURI()...)
	b = append(b, " HTTP/1.1\r\nHost: "...)
	b = append(b, next.Host...)
	b = append(b, "\r\n"...)
	// carry the original headers except Host and Content-Length
	head, body, _ := bytes.Cut(req, []byte("\r\n\r\n"))
	lines := bytes.Split(head, []byte("\r\n"))
	for _, l := range lines[1:] {
		if bytes.HasPrefix(bytes.ToLower(l), []byte("host:")) || bytes.HasPrefix(bytes.ToLower(l), []byte("content-length:")) {
			continue
		}
		b = append(b, l...)
		b = append(b, "\r\n"...)
	}
	if keepBody {
		b = append(b, "Content-Length: "...)
		b = strconv.AppendInt(b, int64(len(body)), 10)
		b = append(b, "\r\n\r\n"...)
		b = append(b, body...)
	} else {
		b = append(b, "\r\n"...)
	}
	r.Code, r.Error, r.Body, r.BytesIn = 0, "", nil, 0
	lw.roundTrip(w, t, hostAddr([]byte(next.Host)), b, r, hops+1)
}

// req2URL rebuilds "http://host/path" from a request's first line.
func req2URL(addr string, req []byte) []byte {
	line, _, _ := bytes.Cut(req, []byte("\r\n"))
	parts := bytes.SplitN(line, []byte(" "), 3)
	path := []byte("/")
	if len(parts) >= 2 {
		path = parts[1]
	}
	return append([]byte("http://"+addr), path...)
}
