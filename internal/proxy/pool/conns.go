package pool

import (
	"context"
	"errors"
	"net"
	"sync"
	"sync/atomic"
	"syscall"
)

// ConnCounter wraps a dial function and counts the connections it opened
// that are not closed yet, so tests and /status can see leaks and the
// connect churn that overflow workers cause.
type ConnCounter struct {
	Dial   func(ctx context.Context, network, addr string) (net.Conn, error)
	open   atomic.Int64
	opened atomic.Uint64
}

// DialContext dials and counts.
func (c *ConnCounter) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	conn, err := c.Dial(ctx, network, addr)
	if err != nil {
		return nil, err
	}
	c.open.Add(1)
	c.opened.Add(1)
	return &countedConn{Conn: conn, c: c}, nil
}

// Open is the number of connections currently open.
func (c *ConnCounter) Open() int64 { return c.open.Load() }

// Opened is the number of connections opened so far.
func (c *ConnCounter) Opened() uint64 { return c.opened.Load() }

type countedConn struct {
	net.Conn
	c    *ConnCounter
	once sync.Once
}

// SyscallConn gives the dialled connection's raw access (see rawconn), or
// an error when it has none.
func (cc *countedConn) SyscallConn() (syscall.RawConn, error) {
	if sc, ok := cc.Conn.(syscall.Conn); ok {
		return sc.SyscallConn()
	}
	return nil, errNoRawConn
}

var errNoRawConn = errors.New("pool: the connection has no raw access")

func (cc *countedConn) Close() error {
	cc.once.Do(func() { cc.c.open.Add(-1) })
	return cc.Conn.Close()
}
