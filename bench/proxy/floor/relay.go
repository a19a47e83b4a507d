package main

import (
	"context"
	"errors"
	"net"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/loadlab/loadlab/internal/hangup"
	"github.com/loadlab/loadlab/internal/rawconn"
)

// conn is a connection read and written through net.Conn, or through
// rawconn when raw (then Send defers a write into the next Read).
type conn struct {
	nc      net.Conn
	raw     *rawconn.Conn
	stamped bool // reads bring the kernel's receive time (-stamps)
}

func newConn(nc net.Conn, raw bool) *conn {
	c := &conn{nc: nc}
	if raw {
		c.raw = rawconn.New(nc)
	}
	return c
}

func (c *conn) Read(p []byte) (int, error) {
	if c.stamped {
		n, _, err := c.raw.ReadStamped(p)
		return n, err
	}
	if c.raw != nil {
		return c.raw.Read(p)
	}
	return c.nc.Read(p)
}

func (c *conn) Write(p []byte) (int, error) {
	if c.raw != nil {
		return c.raw.Write(p)
	}
	return c.nc.Write(p)
}

// relay is mode relay and relay-raw: a goroutine per client connection,
// a buffered channel of idle upstream connections as the pool, or with
// -manager a manager goroutine owning them.
type relay struct {
	upstream string
	opts     options
	pool     chan *conn      // idle connections (no manager)
	checkout chan chan *conn // to the manager: a reply channel
	checkin  chan *conn      // to the manager
	watch    *hangup.Watch   // -watch: the clients' ends
}

// options are the relay's variants, each adding one piece of the real
// proxy's work to measure what it costs (bench/README.md, proxy).
type options struct {
	raw         bool // rawconn instead of net.Conn's Read and Write
	deferAnswer bool // raw: the answer written from inside the next read
	manager     bool // checkout and checkin through a manager goroutine
	deadlines   bool // deadlines per request as the real proxy sets them
	rewrite     bool // the request head rewritten as the real proxy does
	stamps      bool // raw: client reads with the kernel's receive time
	watch       bool // a client that leaves breaks its upstream exchange off
}

var errAnswer = errors.New("floor: an answer the reference does not relay")

// The deadlines of -deadlines, as loadlab proxy's defaults would set them
// (their values do not matter here, only that they are set per request).
const (
	idleTimeout    = 60 * time.Second
	requestTimeout = 5 * time.Second
)

// runRelay dials the pool, listens and serves until the listener fails.
func runRelay(listen, upstream string, size int, opts options) error {
	var err0 error
	r := &relay{upstream: upstream, opts: opts, pool: make(chan *conn, size)}
	for range size {
		u, err := r.dial()
		if err != nil {
			return err
		}
		r.pool <- u
	}
	if opts.manager {
		r.checkout, r.checkin = make(chan chan *conn, 1024), make(chan *conn, 1024)
		go r.manage()
	}
	if opts.watch {
		if r.watch, err0 = hangup.New(); err0 != nil {
			return err0
		}
	}
	ln, err := (&net.ListenConfig{KeepAlive: -1}).Listen(context.Background(), "tcp", listen)
	if err != nil {
		return err
	}
	onListen(ln.Addr())
	for {
		nc, err := ln.Accept()
		if err != nil {
			return err
		}
		c := newConn(nc, opts.raw)
		c.stamped = opts.stamps && c.raw != nil && c.raw.EnableStamps() == nil
		go r.serve(c)
	}
}

func (r *relay) dial() (*conn, error) {
	nc, err := net.Dial("tcp", r.upstream)
	if err != nil {
		return nil, err
	}
	return newConn(nc, r.opts.raw), nil
}

// clientIP is the address X-Forwarded-For gets.
func clientIP(a net.Addr) []byte {
	if ta, ok := a.(*net.TCPAddr); ok {
		return []byte(ta.IP.String())
	}
	return []byte("unknown")
}

// manage owns the idle connections when -manager: checkouts and checkins
// arrive as messages and are served in order, as the real proxy's serial
// pool manager (poolboy's design) serves them.
func (r *relay) manage() {
	var idle []*conn
	for len(r.pool) > 0 {
		idle = append(idle, <-r.pool)
	}
	var waiting []chan *conn
	for {
		select {
		case reply := <-r.checkout:
			if len(idle) == 0 {
				waiting = append(waiting, reply)
				continue
			}
			reply <- idle[len(idle)-1]
			idle = idle[:len(idle)-1]
		case u := <-r.checkin:
			if len(waiting) > 0 {
				waiting[0] <- u
				waiting = waiting[1:]
				continue
			}
			idle = append(idle, u)
		}
	}
}

// get takes an idle upstream connection, waiting for one; reply is the
// client connection's own channel for the manager's answer.
func (r *relay) get(reply chan *conn) *conn {
	if !r.opts.manager {
		return <-r.pool
	}
	r.checkout <- reply
	return <-reply
}

// put gives an upstream connection back.
func (r *relay) put(u *conn) {
	if r.opts.manager {
		r.checkin <- u
		return
	}
	r.pool <- u
}

// serve relays the requests of one client connection, one at a time.
// Its two buffers are the connection's, not the request's: in holds
// request heads (and whatever the client sent after one), out the answer.
func (r *relay) serve(c *conn) {
	defer c.nc.Close()
	// -watch: the upstream connection in use, whose exchange the
	// client's leaving breaks off (as the proxy's request context does).
	var inUse atomic.Pointer[conn]
	if r.watch != nil {
		rc, err := c.nc.(syscall.Conn).SyscallConn()
		if err != nil {
			return
		}
		key, err := r.watch.Add(rc, func() {
			if u := inUse.Load(); u != nil && hangup.PeerGone(rc) {
				_ = u.nc.SetDeadline(time.Unix(1, 0))
			}
		})
		if err != nil {
			return
		}
		defer r.watch.Remove(key, nil)
	}
	in := make([]byte, bufSize)
	out := make([]byte, bufSize)
	reply := make(chan *conn, 1)
	var req, host, ip []byte // -rewrite: the head passed on, Host, client address
	if r.opts.rewrite {
		req, host, ip = make([]byte, 0, bufSize), []byte(r.upstream), clientIP(c.nc.RemoteAddr())
	}
	n := 0
	for {
		if r.opts.deadlines { // the lean server's idle timeout
			_ = c.nc.SetReadDeadline(time.Now().Add(idleTimeout))
		}
		end := headEnd(in[:n])
		for end < 0 {
			if n == len(in) {
				return
			}
			m, err := c.Read(in[n:])
			if err != nil {
				return
			}
			n += m
			end = headEnd(in[:n])
		}
		if !plainGET(in[:end]) {
			return
		}
		if r.opts.deadlines { // the head is read: no read deadline
			_ = c.nc.SetReadDeadline(time.Time{})
		}
		u := r.get(reply)
		if r.opts.deadlines { // the request timeout, on the connection
			_ = u.nc.SetDeadline(time.Now().Add(requestTimeout))
		}
		head := in[:end]
		if r.opts.rewrite {
			req = rewriteHead(req[:0], head, host, ip)
			head = req
		}
		if r.watch != nil {
			inUse.Store(u)
		}
		last, err := r.exchange(u, head, c, out)
		if r.watch != nil {
			inUse.Store(nil)
		}
		if err != nil {
			u.nc.Close() // its state is unknown: a fresh connection replaces it
			u, err = r.dial()
			if err == nil {
				r.put(u)
			}
			return
		}
		r.put(u)
		n = copy(in, in[end:n])
		// The answer's last part: on a raw connection written from
		// inside the next request's first read, unless that request is
		// already here (a pipelining client).
		if c.raw != nil && r.opts.deferAnswer && headEnd(in[:n]) < 0 {
			c.raw.Send(last)
		} else if _, err := c.Write(last); err != nil {
			return
		}
	}
}

// exchange writes req upstream and reads the answer into out, passing
// each full buffer of a long body on to the client; it returns the
// answer's last part, still to be written. An error is the upstream
// connection's (or the client's, for a long body): the upstream
// connection is then not reused. The connection is back in the pool before
// the client is written its last part (relay-raw writes it from inside the
// client's next read).
func (r *relay) exchange(u *conn, req []byte, c *conn, out []byte) ([]byte, error) {
	if u.raw != nil {
		u.raw.Send(req) // written from inside the answer's first read
	} else if _, err := u.Write(req); err != nil {
		return nil, err
	}
	got, total := 0, -1
	for {
		m, err := u.Read(out[got:])
		if err != nil {
			return nil, err
		}
		got += m
		if total < 0 {
			end := headEnd(out[:got])
			if end < 0 {
				if got == len(out) {
					return nil, errAnswer
				}
				continue
			}
			var ok bool
			if total, ok = answerLength(out[:end]); !ok {
				return nil, errAnswer
			}
		}
		if got > total {
			return nil, errAnswer // bytes past the answer: not one we relay
		}
		if got == total {
			return out[:got], nil
		}
		if got == len(out) { // a long body: pass the buffer on, read on
			if _, err := c.Write(out); err != nil {
				return nil, err
			}
			total -= got
			got = 0
		}
	}
}
