package pool

import (
	"bufio"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"

	"github.com/loadlab/loadlab/internal/httpsyntax"
	"github.com/loadlab/loadlab/internal/rawconn"
)

// Worker is one upstream connection, as a poolboy worker in Belfrage owns
// one: HTTP/1.1 requests are written to it and responses read from it on the
// caller's goroutine, one at a time, and it stays open between requests
// (keep-alive) unless the upstream or a timeout closes it. A caller holds
// the worker from checkout until the response body is read and closed.
type Worker struct {
	overflow bool
	dial     func(ctx context.Context, network, addr string) (net.Conn, error)

	conn     net.Conn
	raw      *rawconn.Conn // conn's raw system calls; nil for TLS or off Linux
	deadline bool          // a deadline is set on conn
	out      []byte        // a request head (and no body) waiting to be sent
	br       *bufio.Reader
	bw       *bufio.Writer
	lim      *headLimit // under br: bounds response heads
	target   string     // scheme://host:port the connection goes to
	// urlScheme and urlHost are the request URL's parts target was made
	// from: a request with the same ones reuses target as it is.
	urlScheme, urlHost string
	// breakOff breaks off conn's reads and writes (made once per
	// connection, not per exchange).
	breakOff func()
	lastUsed time.Time
	// ans, ansBody and ansWrap are the byte path's answer (RoundTripHead),
	// reused from one exchange to the next: one at a time per worker.
	ans     Answer
	ansBody leanBody
	ansWrap body
}

// maxIdle is how long an idle connection is trusted; older ones are
// replaced before use rather than found closed by the upstream.
const maxIdle = 50 * time.Second

// aLongTimeAgo is a deadline that interrupts blocked reads and writes.
var aLongTimeAgo = time.Unix(1, 0)

// Overflow reports whether w is an overflow worker (dismissed after use).
func (w *Worker) Overflow() bool { return w.overflow }

// Connected reports whether the worker holds an open connection.
func (w *Worker) Connected() bool { return w.conn != nil }

// RoundTrip sends req over the worker's connection, connecting first if it
// has none (or one to another host), and reads the response head. The
// request's context bounds the whole exchange, body included: when it ends
// (request timeout, client gone) the connection's reads and writes are
// broken off and it is closed. A request without a body that fails on a
// reused connection before any response byte (the upstream closed it while
// idle) is retried once on a fresh connection.
func (w *Worker) RoundTrip(req *http.Request) (*http.Response, error) {
	deadline, _ := req.Context().Deadline()
	return w.RoundTripUntil(req, deadline)
}

// RoundTripUntil is RoundTrip with the exchange, body included, also
// bounded by deadline (zero: none), which is set on the connection itself
// rather than carried by a context: the proxy's request timeout then costs
// no context, no timer of its own and no callback registration per
// request. A failure past the deadline is reported as
// context.DeadlineExceeded, as RoundTrip reports its context's.
func (w *Worker) RoundTripUntil(req *http.Request, deadline time.Time) (*http.Response, error) {
	resp, _, err := w.roundTrip(req.Context(), req, req.URL.Scheme, req.URL.Host, nil, deadline, nil)
	return resp, err
}

// RoundTripHead is RoundTripUntil for a request without a body whose head
// the caller made: head, a whole HTTP/1.1 request head of method (GET or
// HEAD), is sent to scheme://host as it is, ctx the client's context.
// An answer whose head is of the plain kind (see plainAnswer) and that
// accept takes comes back as bytes in ans, its head not parsed into a
// header map; any other comes back as RoundTripUntil's response, read
// from the same reader (readLeanResponse, else http.ReadResponse). ans is
// the worker's own: it is valid until the worker is checked in.
func (w *Worker) RoundTripHead(ctx context.Context, method, scheme, host string, head []byte, deadline time.Time, accept AcceptFunc) (resp *http.Response, ans *Answer, err error) {
	var req *http.Request // a GET, for reading the answer
	if method == http.MethodHead {
		req = headRequest
	}
	return w.roundTrip(ctx, req, scheme, host, head, deadline, accept)
}

// headRequest is the request a HEAD's answer is read for (the answer has
// no body); never changed.
var headRequest = &http.Request{Method: http.MethodHead}

// roundTrip is RoundTripUntil (req, head nil) and RoundTripHead (head, req
// nil for a GET).
func (w *Worker) roundTrip(ctx context.Context, req *http.Request, scheme, host string, head []byte, deadline time.Time, accept AcceptFunc) (*http.Response, *Answer, error) {
	target := w.target
	if w.conn == nil || scheme != w.urlScheme || host != w.urlHost {
		target = scheme + "://" + canonicalAddr(scheme, host)
	}
	for attempt := 0; ; attempt++ {
		reused := w.conn != nil && w.target == target && time.Since(w.lastUsed) < maxIdle
		if !reused {
			w.closeConn()
			if err := w.connectUntil(ctx, deadline, scheme, target, host); err != nil {
				return nil, nil, timeoutErr(ctx, deadline, err)
			}
		}
		resp, ans, retryable, err := w.exchange(ctx, deadline, req, head, accept)
		if err == nil {
			return resp, ans, nil
		}
		w.closeConn()
		if reused && retryable && attempt == 0 && ctx.Err() == nil && (head != nil || req.Body == nil) {
			continue
		}
		return nil, nil, timeoutErr(ctx, deadline, err)
	}
}

// connectUntil is connect with the dial bounded by deadline too.
func (w *Worker) connectUntil(ctx context.Context, deadline time.Time, scheme, target, host string) error {
	if !deadline.IsZero() {
		var cancel context.CancelFunc
		ctx, cancel = context.WithDeadline(ctx, deadline)
		defer cancel()
	}
	return w.connect(ctx, scheme, target, host)
}

// afterFuncer is a context with its own AfterFunc (the lean server's
// request context): registering on it directly skips context.AfterFunc's
// wrapper.
type afterFuncer interface {
	AfterFunc(func()) func() bool
}

// exchange writes req (or head, when not nil) and reads the response
// head: as bytes in ans when head is not nil and the answer is plain and
// accepted, else as resp. retryable says the failure came before any
// response byte.
func (w *Worker) exchange(ctx context.Context, deadline time.Time, req *http.Request, head []byte, accept AcceptFunc) (resp *http.Response, ans *Answer, retryable bool, err error) {
	conn := w.conn
	// The deadline (if any) is the connection's; one left from an earlier
	// exchange is replaced or cleared. The context's end (request timeout,
	// or the client leaving) breaks any read or write in progress.
	if !deadline.IsZero() || w.deadline {
		_ = conn.SetDeadline(deadline)
		w.deadline = !deadline.IsZero()
	}
	var stop func() bool
	if af, ok := ctx.(afterFuncer); ok {
		stop = af.AfterFunc(w.breakOff)
	} else {
		stop = context.AfterFunc(ctx, w.breakOff)
	}
	lean := head != nil
	if !lean && w.raw != nil && req.Body == nil {
		w.out, lean = httpsyntax.AppendRequest(w.out[:0], req)
		head = w.out
	}
	switch {
	case lean && w.raw != nil:
		// The request is written by the first read of the response,
		// without a wait in between (rawconn.Conn.Send): one system call
		// and one poller wake-up less than write then read.
		w.raw.Send(head)
	case lean:
		_, _ = w.bw.Write(head)
		err = w.bw.Flush()
	default:
		if err = req.Write(w.bw); err == nil {
			err = w.bw.Flush()
		}
	}
	if err != nil {
		stop()
		return nil, nil, true, err
	}
	w.lim.arm(w.br.Size())
	if accept != nil {
		method := http.MethodGet
		if req != nil {
			method = req.Method
		}
		if ans, err = w.plain(method, accept, stop); ans != nil {
			w.lim.disarm()
			return nil, ans, false, nil
		}
	}
	if err == nil {
		resp, lean, err = readLeanResponse(w.br, req)
	}
	if err == nil && !lean {
		resp, err = http.ReadResponse(w.br, req)
	}
	for err == nil && resp.StatusCode >= 100 && resp.StatusCode < 200 && resp.StatusCode != http.StatusSwitchingProtocols {
		resp, err = http.ReadResponse(w.br, req) // skip 100 Continue and other interim responses
	}
	w.lim.disarm()
	if errors.Is(err, ErrHeadTooLarge) {
		stop()
		return nil, nil, false, ErrHeadTooLarge
	}
	if err != nil {
		stop()
		return nil, nil, errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || isReset(err), err
	}
	resp.Body = &body{rc: resp.Body, w: w, stop: stop, mustClose: resp.Close}
	return resp, nil, false, nil
}

func (w *Worker) connect(ctx context.Context, scheme, target, host string) error {
	addr := canonicalAddr(scheme, host)
	conn, err := w.dial(ctx, "tcp", addr)
	if err != nil {
		return err
	}
	if scheme == "https" {
		name, _, _ := net.SplitHostPort(addr)
		tc := tls.Client(conn, &tls.Config{ServerName: name, NextProtos: []string{"http/1.1"}})
		if err := tc.HandshakeContext(ctx); err != nil {
			conn.Close()
			return err
		}
		conn = tc
	}
	w.conn = conn
	w.target, w.urlScheme, w.urlHost = target, scheme, host
	w.breakOff = func() { _ = conn.SetDeadline(aLongTimeAgo) }
	w.deadline = false
	var rw io.ReadWriter = conn
	w.raw = nil
	if scheme != "https" {
		if w.raw = rawconn.New(conn); w.raw != nil {
			rw = w.raw
		}
	}
	if w.br == nil {
		w.lim = &headLimit{r: rw}
		w.br = bufio.NewReaderSize(w.lim, 16<<10)
		w.bw = bufio.NewWriterSize(rw, 8<<10)
	} else {
		*w.lim = headLimit{r: rw}
		w.br.Reset(w.lim)
		w.bw.Reset(rw)
	}
	return nil
}

// closeConn drops the connection, if any.
func (w *Worker) closeConn() {
	if w.conn != nil {
		w.conn.Close()
		w.conn, w.raw = nil, nil
	}
}

// close is called when the worker leaves the pool.
func (w *Worker) close() { w.closeConn() }

// body is a response body that hands the connection back for keep-alive
// once fully read, or closes it.
type body struct {
	rc        io.ReadCloser
	w         *Worker
	stop      func() bool
	mustClose bool // the upstream said Connection: close
	done      bool
}

func (b *body) Read(p []byte) (int, error) { return b.rc.Read(p) }

// Close drains what is left of the body (bounded by the request deadline)
// and keeps the connection if the exchange ended cleanly.
func (b *body) Close() error {
	if b.done {
		return nil
	}
	b.done = true
	err := b.rc.Close() // net/http drains a client-side body on Close
	intact := b.stop()  // false: the context ended and broke the deadline
	if err != nil || !intact || b.mustClose {
		b.w.closeConn()
		return nil
	}
	b.w.lastUsed = time.Now()
	return nil
}

// canonicalAddr adds the scheme's default port to host if it has none.
func canonicalAddr(scheme, host string) string {
	if _, _, err := net.SplitHostPort(host); err == nil {
		return host
	}
	if scheme == "https" {
		return net.JoinHostPort(host, "443")
	}
	return net.JoinHostPort(host, "80")
}

// timeoutErr reports a failure past the deadline (the exchange's, or the
// context's) as context.DeadlineExceeded (the connection's deadline can
// fire first).
func timeoutErr(ctx context.Context, deadline time.Time, err error) error {
	if dl, ok := ctx.Deadline(); ok && (deadline.IsZero() || dl.Before(deadline)) {
		deadline = dl
	}
	if !deadline.IsZero() && !time.Now().Before(deadline) {
		var ne net.Error
		if errors.As(err, &ne) && ne.Timeout() || ctx.Err() != nil {
			return fmt.Errorf("%w: %v", context.DeadlineExceeded, err)
		}
	}
	if ctx.Err() != nil && !errors.Is(err, ctx.Err()) {
		return fmt.Errorf("%w: %v", ctx.Err(), err)
	}
	return err
}

func isReset(err error) bool {
	var ne *net.OpError
	return errors.As(err, &ne) && !ne.Timeout()
}
