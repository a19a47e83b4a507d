package leanserver

import (
	"io"
	"net"
	"sync"
)

// The lean server hands a connection it does not serve itself (chunked
// request body, Expect, HTTP/2 preface, Upgrade, a head it refuses) to
// net/http's server, which then serves it to the end: the bytes already
// read are replayed first (handedConn), and the connection reaches the
// server through a listener fed by a channel (connListener).

// handedConn is a connection handed over by the lean server: reads return
// the bytes it had already read, then the connection's.
type handedConn struct {
	net.Conn
	pending []byte
	served  int64 // requests the lean server answered on it
}

func (c *handedConn) Read(p []byte) (int, error) {
	if len(c.pending) > 0 {
		n := copy(p, c.pending)
		c.pending = c.pending[n:]
		if len(c.pending) == 0 {
			c.pending = nil
		}
		return n, nil
	}
	return c.Conn.Read(p)
}

// NetConn returns the connection underneath (for TCP options).
func (c *handedConn) NetConn() net.Conn { return c.Conn }

// CloseWrite half-closes the connection when it can (net/http uses it to
// close gracefully after an error answer).
func (c *handedConn) CloseWrite() error {
	if cw, ok := c.Conn.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return c.Conn.Close()
}

// ReadFrom lets net/http send files with sendfile through the TCP
// connection.
func (c *handedConn) ReadFrom(r io.Reader) (int64, error) {
	if rf, ok := c.Conn.(io.ReaderFrom); ok {
		return rf.ReadFrom(r)
	}
	return io.Copy(struct{ io.Writer }{c.Conn}, r)
}

// connListener is a net.Listener whose connections are handed to it.
type connListener struct {
	addr net.Addr
	ch   chan net.Conn
	done chan struct{}
	once sync.Once
}

func newConnListener(addr net.Addr) *connListener {
	return &connListener{addr: addr, ch: make(chan net.Conn), done: make(chan struct{})}
}

// hand gives c to the server accepting on l; false once l is closed.
func (l *connListener) hand(c net.Conn) bool {
	select {
	case l.ch <- c:
		return true
	case <-l.done:
		return false
	}
}

func (l *connListener) Accept() (net.Conn, error) {
	select {
	case c := <-l.ch:
		return c, nil
	case <-l.done:
		return nil, net.ErrClosed
	}
}

func (l *connListener) Close() error {
	l.once.Do(func() { close(l.done) })
	return nil
}

func (l *connListener) Addr() net.Addr { return l.addr }

// HandedServed returns how many requests the lean server answered on c
// before handing it to net/http's server (0 for another connection).
func HandedServed(c net.Conn) int64 {
	if hc, ok := c.(*handedConn); ok {
		return hc.served
	}
	return 0
}

// Replay returns c with pending read first: for a connection whose first
// bytes were already read (an h2c upgrade's preface).
func Replay(c net.Conn, pending []byte) net.Conn {
	return &handedConn{Conn: c, pending: pending}
}
