package leanserver

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/url"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/loadlab/loadlab/internal/httpsyntax"
	"github.com/loadlab/loadlab/internal/rawconn"
)

// The lean server serves HTTP/1.1 keep-alive without net/http's server:
// one goroutine per connection, heads parsed from a reused buffer, answers
// written from one buffer (or header then sendfile through the handler's
// io.Copy). It calls the same http.Handler as net/http's would, so the
// simulator's recipes, faults and overrides are unchanged. A connection
// whose next request it does not take (chunked request body, Expect,
// Upgrade, the HTTP/2 preface, a head it refuses) is handed, with the
// bytes already read, to net/http's server, which serves it from then on
// (and answers errors as -server std does). A client going away is noticed
// only while the handler waits on its request context (latency, hang), by
// a read started then.

// Config says how the lean server serves. Zero durations take
// net/http's usual defaults (below).
type Config struct {
	NoKeepAlive       bool          // close every connection after one request
	MaxConnRequests   int64         // close a connection after this many requests (0: no limit)
	IdleTimeout       time.Duration // keep-alive idle limit (0: 2 min)
	ReadHeaderTimeout time.Duration // bound on reading a head (0: 30 s)
	ShutdownTimeout   time.Duration // bound on the graceful shutdown (0: 5 s)
	// ConnContext, when set, adds per-connection values to request
	// contexts.
	ConnContext func(ctx context.Context, c net.Conn) context.Context
}

// ErrShutdownCut is returned by Serve when answers were still in
// progress at the end of the shutdown timeout: their connections were
// closed.
var ErrShutdownCut = errors.New("answers still in progress at the end of the shutdown timeout")

// Serve serves h on ln with the lean server until ctx ends, and hands
// the connections it does not serve itself to std (net/http's server for
// the same handler), which it runs and shuts down. At the end it calls
// beforeShutdown (if not nil; it should release long-running handlers),
// closes idle connections and waits, up to cfg.ShutdownTimeout, for the
// answers in progress; afterStd (if not nil) runs once std is shut down.
// It closes ln, and returns ErrShutdownCut when answers had to be cut.
func Serve(ctx context.Context, ln net.Listener, cfg Config, h http.Handler, std *http.Server, beforeShutdown, afterStd func()) error {
	handed := newConnListener(ln.Addr())
	stdErr := make(chan error, 1)
	go func() { stdErr <- std.Serve(handed) }()
	var wg sync.WaitGroup
	srv := &leanServer{conns: map[*serverConn]struct{}{}, done: make(chan struct{})}
	defer close(srv.done) // ends the sleep watchers
	defer func() {        // once every connection is done
		srv.hangupOnce.Do(func() {})
		if srv.hangup != nil {
			srv.hangup.Close()
		}
	}()
	mu, conns := &srv.mu, srv.conns
	stopped := false
	go func() {
		<-ctx.Done()
		if beforeShutdown != nil {
			beforeShutdown()
		}
		mu.Lock()
		stopped = true
		for c := range conns {
			c.shutdown()
		}
		mu.Unlock()
		_ = ln.Close()
	}()
	var err error
	for {
		nc, aerr := ln.Accept()
		if aerr != nil {
			if ctx.Err() == nil {
				err = aerr
			}
			break
		}
		c := newServerConn(nc, cfg, h, handed.hand)
		c.srv = srv
		mu.Lock()
		if stopped {
			mu.Unlock()
			_ = nc.Close()
			continue
		}
		conns[c] = struct{}{}
		mu.Unlock()
		wg.Add(1)
		go func() {
			defer wg.Done()
			c.serve()
			mu.Lock()
			delete(conns, c)
			mu.Unlock()
		}()
	}
	deadline := time.Now().Add(or(cfg.ShutdownTimeout, 5*time.Second))
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(time.Until(deadline)):
		if err == nil {
			err = ErrShutdownCut
		}
		mu.Lock()
		for c := range conns {
			_ = c.nc.Close()
		}
		mu.Unlock()
		<-done
	}
	// No more handoffs: shut down net/http's server (what it was handed).
	sctx, cancel := context.WithDeadline(context.Background(), deadline)
	defer cancel()
	if serr := std.Shutdown(sctx); serr != nil {
		_ = std.Close()
		if err == nil {
			err = ErrShutdownCut
		}
	}
	if afterStd != nil {
		afterStd()
	}
	if serr := <-stdErr; serr != nil && !errors.Is(serr, http.ErrServerClosed) && err == nil {
		err = serr
	}
	return err
}

type serverConn struct {
	nc     net.Conn
	rw     io.ReadWriter // raw system calls on Linux, else nc
	raw    *rawconn.Conn // nil when not on Linux
	cfg    Config
	h      http.Handler
	base   context.Context
	buf    []byte // bytes read, not yet used
	hbuf   []byte // backing store of buf between requests
	served int64
	hand   func(net.Conn) bool // hands the connection to net/http's server
	srv    *leanServer
	stamp  bool      // raw reads bring the kernel's receive times of heads
	recvAt time.Time // when the bytes last read reached the server
	remote string    // RemoteAddr, once asked for
	// crlfLeft is how many CR or LF bytes before the next request line
	// are skipped: up to 4 after a POST (net/http's tolerance for old
	// clients that end a body with CRLF), else none.
	crlfLeft int
	// lastDone is when the previous answer on the connection was sent.
	lastDone time.Time
	// reqHdr and respHdr are the header maps of the request being served,
	// reused (cleared) from one request to the next, and fields the
	// request's fields (see leanReq).
	reqHdr, respHdr http.Header
	fields          []httpsyntax.Field
	mu              sync.Mutex
	// sleepStop is the stop channel of the sleep in progress (see
	// reqCtx.Sleep), nil when none.
	sleepStop <-chan struct{}
	idle      bool
	stopping  bool
	// watchStop is set (under reqCtx.mu) while a request's watcher is
	// being stopped.
	watchStop bool
	// watchTimer ends the watch delay of the request in watchReq (see
	// reqCtx.armLocked); made once per connection, when first needed.
	watchTimer atomic.Pointer[time.Timer]
	watchReq   atomic.Pointer[reqCtx]
	// watcher is the previous request's watcher, handed over with its
	// read in progress (reqCtx.stop): readHead takes that read's result
	// as its own. watchRaw is the watchers' own raw access to the socket
	// (separate from rw, which the answer is written through meanwhile),
	// watchBuf their buffer; made once, when first needed.
	watcher  *reqCtx
	watchRaw *rawconn.Conn
	watchBuf []byte
	// hangupKey is the connection's key in its server's hangup watch (0:
	// not in it), hangupRC its socket's access for the watch, hangupTried
	// set once it was asked to join (see joinHangupWatch); hangupSeen is
	// set when the watch saw the client's end close, and inFlight is the
	// request being served, which the watch checks then.
	hangupKey   atomic.Uint64
	hangupRC    syscall.RawConn
	hangupTried bool
	hangupSeen  atomic.Bool
	inFlight    atomic.Pointer[reqCtx]
}

func newServerConn(nc net.Conn, cfg Config, h http.Handler, hand func(net.Conn) bool) *serverConn {
	base := context.Background()
	if cfg.ConnContext != nil {
		base = cfg.ConnContext(base, nc)
	}
	c := &serverConn{nc: nc, rw: nc, cfg: cfg, h: h, base: base, hand: hand, hbuf: make([]byte, 0, 4<<10)}
	if r := rawconn.New(nc); r != nil {
		c.rw, c.raw = r, r
		c.stamp = r.EnableStamps() == nil
	}
	return c
}

// shutdown closes the connection if idle, or after the answer in progress.
func (c *serverConn) shutdown() {
	c.mu.Lock()
	c.stopping = true
	if c.idle {
		_ = c.nc.SetReadDeadline(time.Now())
	}
	c.mu.Unlock()
}

// setIdle marks the connection idle (waiting for a request) or not; when
// idle it also sets the read deadline to d, under the lock, so a shutdown
// cannot be overridden. It reports whether the connection may go on.
func (c *serverConn) setIdle(idle bool, d time.Duration) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.idle = idle
	if c.stopping {
		return false
	}
	if idle {
		_ = c.nc.SetReadDeadline(time.Now().Add(d))
	}
	return true
}

func (c *serverConn) serve() {
	handed := false
	defer func() {
		c.leaveHangupWatch(handed)
		if !handed {
			_ = c.nc.Close()
		}
	}()
	c.buf = c.hbuf[:0]
	idle := or(c.cfg.IdleTimeout, 2*time.Minute)
	headTimeout := or(c.cfg.ReadHeaderTimeout, 30*time.Second)
	for {
		if !c.setIdle(true, idle) {
			return
		}
		started := len(c.buf) > 0
		// timed: the head deadline is set, once the head is found to need
		// another read (most heads come whole in one: no deadline change
		// for them), or not wanted (bytes left from the previous request:
		// the idle deadline stays).
		timed := started
		skipped := 0 // CR and LF bytes skipped before this request
		var req *leanReq
		for {
			for c.crlfLeft > 0 && len(c.buf) > 0 && (c.buf[0] == '\r' || c.buf[0] == '\n') {
				c.buf, c.crlfLeft = c.buf[1:], c.crlfLeft-1
				skipped++
			}
			r, n, err := parseHeadInto(c.buf, c.fields)
			if err == nil {
				c.fields = r.fields
			}
			// A plain target's URL is made without a parse, when needed
			// (leanReq.template); any other is checked here.
			if err == nil {
				r.plain = plainTarget(r.target)
			}
			if err == nil && !r.plain {
				if r.url, err = url.ParseRequestURI(r.target); err != nil {
					err = &headError{http.StatusBadRequest, "bad request target"}
				}
			}
			if err == nil {
				req = r
				c.buf = c.buf[n:]
				c.crlfLeft = 0
				if r.method == http.MethodPost {
					c.crlfLeft = 4
				}
				break
			}
			if _, ok := err.(*headError); ok { // net/http's server takes it from here
				handed = c.handoff()
				return
			}
			if started && !timed {
				timed = true
				c.setIdle(false, 0)
				_ = c.nc.SetReadDeadline(time.Now().Add(headTimeout))
			}
			if cap(c.buf)-len(c.buf) < minHeadRead { // move to the front, or grow
				if len(c.buf)+minHeadRead > cap(c.hbuf) {
					c.hbuf = make([]byte, 0, max(2*cap(c.hbuf), len(c.buf)+minHeadRead))
				}
				c.buf = c.hbuf[:copy(c.hbuf[:cap(c.hbuf)], c.buf)]
			}
			m, rerr := c.readHead(c.buf[len(c.buf):cap(c.buf)])
			if m > 0 {
				started = true
				c.buf = c.buf[:len(c.buf)+m]
			}
			if rerr != nil {
				// A head cut short: net/http's server answers it (400)
				// as it would; it waits for 4 bytes before every request
				// but the first, and closes silently when fewer come.
				if errors.Is(rerr, io.EOF) && len(c.buf) > 0 && (c.served == 0 || len(c.buf)+skipped >= 4) {
					handed = c.handoff()
				}
				return
			}
		}
		c.setIdle(false, 0)
		_ = c.nc.SetReadDeadline(time.Time{})
		c.served++
		keep := c.serveOne(req)
		if !keep {
			return
		}
		if len(c.buf) == 0 {
			c.buf = c.hbuf[:0]
		}
	}
}

// readHead reads more of a request head and notes when its bytes reached
// the server: the kernel's receive time when there is one (not later than
// now, not earlier than a second ago), else now.
func (c *serverConn) readHead(p []byte) (int, error) {
	if r := c.watcher; r != nil { // its read is this one (see reqCtx.stop)
		c.watcher = nil
		<-r.watched
		c.watchStop = false
		n := copy(p, r.extra) // p has room for watchRead bytes
		if n > 0 {
			c.recvAt = r.extraAt
			return n, nil
		}
		if r.extraErr == nil {
			return 0, io.EOF
		}
		return 0, r.extraErr
	}
	if !c.stamp {
		n, err := c.rw.Read(p)
		if n > 0 {
			c.recvAt = time.Now()
		}
		return n, err
	}
	n, rx, err := c.raw.ReadStamped(p)
	if n > 0 {
		now := time.Now()
		if at := rawconn.Arrival(rx, now, time.Second); !at.IsZero() {
			now = at // on now's monotonic clock
		}
		c.recvAt = now
	}
	return n, err
}

// handoff gives the connection, with the bytes read and not yet used, to
// net/http's server; false if it is shut down (the connection then closes).
func (c *serverConn) handoff() bool {
	_ = c.nc.SetReadDeadline(time.Time{})
	return c.hand(&handedConn{Conn: c.nc, pending: bytes.Clone(c.buf), served: c.served})
}

// serveOne runs the handler on req; it reports whether the connection can
// serve another request.
func (c *serverConn) serveOne(lr *leanReq) (keep bool) {
	// The request's parts are one allocation (see leanExchange).
	x := &leanExchange{}
	body := &x.body
	*body = leanBody{c: c, left: lr.contentLength}
	// The request's time starts when it arrived, or, if it came pipelined
	// behind the previous one, when that one was answered (as net/http's
	// server, which starts the handler then).
	received := c.recvAt
	if c.lastDone.After(received) {
		received = c.lastDone
	}
	rctx := &x.ctx
	rctx.Context, rctx.c, rctx.received, rctx.body = c.base, c, received, lr.contentLength > 0
	body.ctx = rctx
	// In the hangup watch, a request is watched from its start: a client
	// that closed since the watch last looked is seen here.
	c.inFlight.Store(rctx)
	if c.hangupSeen.Load() {
		rctx.checkHangup()
	}
	if c.respHdr == nil {
		c.respHdr = make(http.Header, 16)
	}
	clear(c.respHdr)
	w := &x.w
	*w = leanWriter{c: c, isHead: lr.method == http.MethodHead, header: c.respHdr}
	w.close = lr.close || c.cfg.NoKeepAlive ||
		(c.cfg.MaxConnRequests > 0 && c.served >= c.cfg.MaxConnRequests)
	aborted := c.run(w, x, lr)
	// A watcher's read is handed to the connection only when it is the
	// next one: with bytes of a next request already here, they are
	// served first, and the watcher is broken off.
	rctx.stop(!aborted && !w.hijacked && len(c.buf) == 0)
	if aborted || w.hijacked {
		return false
	}
	err := w.finish()
	w.release()
	c.lastDone = time.Now()
	if err != nil {
		return false
	}
	if body.left > 0 { // the handler left part of the body: skip it
		if body.left > 256<<10 || w.close { // unless the connection ends anyway
			return false
		}
		if _, err := io.Copy(io.Discard, body); err != nil {
			return false
		}
	}
	return !w.close && !rctx.gone
}

// leanExchange holds a request's body reader, context, writer, URL, raw
// head and the request the handler's one is made from (WithContext copies
// it), so that they cost one allocation instead of six. Nothing in it is
// reused from one request to the next: a handler may keep any of them.
type leanExchange struct {
	req  http.Request
	url  url.URL
	raw  RawRequest
	ctx  reqCtx
	body leanBody
	w    leanWriter
}

// request makes lr's http.Request in x: its header (the connection's map,
// reused), URL, body and context.
func (x *leanExchange) request(c *serverConn, lr *leanReq) *http.Request {
	if c.reqHdr == nil {
		c.reqHdr = make(http.Header, 8)
	}
	lr.fillHeader(c.reqHdr)
	x.req = lr.template(&x.url)
	x.req.Body, x.req.RemoteAddr = &x.body, c.remoteAddr()
	if lr.contentLength == 0 {
		x.req.Body = http.NoBody
	}
	return x.req.WithContext(&x.ctx)
}

// template is lr as an http.Request without body, client address and
// context; its URL is lr.url, or, for a plain target (not parsed yet), u
// set from it.
func (lr *leanReq) template(u *url.URL) http.Request {
	if lr.url == nil {
		setPlainURL(u, lr.target)
		lr.url = u
	}
	return http.Request{
		Method:        lr.method,
		URL:           lr.url,
		Proto:         protos[lr.minor&1],
		ProtoMajor:    1,
		ProtoMinor:    lr.minor,
		Header:        lr.header,
		ContentLength: lr.contentLength,
		Host:          lr.host,
		RequestURI:    lr.target,
		Close:         lr.close,
	}
}

// run calls the handler: a RawHandler with the raw head, any other with
// the http.Request. A panic (http.ErrAbortHandler or another) aborts the
// answer and the connection.
func (c *serverConn) run(w *leanWriter, x *leanExchange, lr *leanReq) (aborted bool) {
	defer func() {
		if p := recover(); p != nil {
			aborted = true
		}
	}()
	if rh, ok := c.h.(RawHandler); ok {
		x.raw = RawRequest{lr: lr, ctx: &x.ctx, remote: c.remoteAddr(), x: x, c: c}
		rh.ServeRaw(w, &x.raw)
		return false
	}
	c.h.ServeHTTP(w, x.request(c, lr))
	return false
}

var protos = [2]string{"HTTP/1.0", "HTTP/1.1"}

// remoteAddr is the client's address, made into a string once.
func (c *serverConn) remoteAddr() string {
	if c.remote == "" {
		c.remote = c.nc.RemoteAddr().String()
	}
	return c.remote
}

// leanBody reads a request body of known length: first the bytes already
// read with the head, then from the connection.
type leanBody struct {
	c    *serverConn
	ctx  *reqCtx // told when the body has been read to its end
	left int64
}

func (b *leanBody) Read(p []byte) (n int, err error) {
	if b.left <= 0 {
		return 0, io.EOF
	}
	defer func() {
		if (b.left <= 0 || err != nil) && b.ctx != nil {
			b.ctx.bodyRead()
		}
	}()
	if int64(len(p)) > b.left {
		p = p[:b.left]
	}
	if len(b.c.buf) > 0 {
		n = copy(p, b.c.buf)
		b.c.buf = b.c.buf[n:]
		b.left -= int64(n)
		return n, nil
	}
	n, err = b.c.rw.Read(p)
	b.left -= int64(n)
	if err == io.EOF && b.left > 0 {
		err = io.ErrUnexpectedEOF
	}
	return n, err
}

func (b *leanBody) Close() error { return nil }

func or(d, def time.Duration) time.Duration {
	if d > 0 {
		return d
	}
	return def
}
