package http1

import (
	"bufio"
	"context"
	"net"
	"os"
	"sync"
	"time"

	"github.com/loadlab/loadlab/internal/harvest"
	"github.com/loadlab/loadlab/internal/rawconn"
)

// leanClient is a minimal HTTP/1.1 keep-alive client for plain http://
// targets. A worker takes an idle connection from a per-host LIFO pool (or
// dials one), writes the request in one system call, parses the response in
// place and puts the connection back: no goroutine, channel or allocation
// per request. net/http serves everything else.
type leanClient struct {
	opts    *Options
	std     *stdClient // follows the redirects to https:// (and other schemes)
	dialer  net.Dialer
	maxIdle int             // idle connections kept per host
	poll    *harvest.Poller // paced attacks: connections read at the pacer's wake-ups; nil: the runtime poller
	mu      sync.Mutex
	idle    map[string][]*leanConn // by host:port, most recently used last
	live    map[*leanConn]struct{} // every open connection, to abort them on hard stop
}

func newLeanClient(o *Options) *leanClient {
	maxIdle := o.Connections
	if maxIdle <= 0 {
		maxIdle = 10000
	}
	var poll *harvest.Poller
	if o.Harvest {
		poll, _ = harvest.New() // nil where unsupported: the runtime poller then
	}
	return &leanClient{
		opts:    o,
		poll:    poll,
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
	var nc net.Conn
	var err error
	if l.poll != nil {
		nc, err = l.poll.Dial(ctx, addr, l.opts.Timeout)
	} else {
		nc, err = l.dialer.DialContext(ctx, "tcp", addr)
	}
	if err != nil {
		return nil, err
	}
	c := &leanConn{c: nc, raw: rawconn.New(nc)}
	if c.raw != nil {
		c.br = bufio.NewReaderSize(c.raw, 8<<10)
	} else {
		c.br = bufio.NewReaderSize(nc, 8<<10)
	}
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

// close releases the harvest poller once every connection is closed.
func (l *leanClient) close() {
	l.closeIdle()
	if l.poll != nil {
		_ = l.poll.Close()
	}
}

// envHTTPProxy reports whether the environment names a proxy for http://
// requests (net/http reads HTTP_PROXY, or http_proxy).
func envHTTPProxy() bool {
	return os.Getenv("HTTP_PROXY") != "" || os.Getenv("http_proxy") != ""
}

// abortAll makes every in-flight read, write or dial fail now.
func (l *leanClient) abortAll() {
	if l.poll != nil {
		l.poll.Abort()
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	for c := range l.live {
		_ = c.c.SetDeadline(time.Unix(1, 0))
	}
}

// deadlineSlack is how much later than Timeout a lean request may time
// out: min(Timeout/1000, 10ms), so that a 30 s timeout ends within 30.03 s
// as vegeta's (a 1 s slack once let timeouts be recorded at 31 s).
func deadlineSlack(timeout time.Duration) time.Duration {
	return min(timeout/1000, 10*time.Millisecond)
}

type leanConn struct {
	c        net.Conn
	raw      *rawconn.Conn // raw system calls (Linux), nil: use c
	br       *bufio.Reader
	deadline time.Time // current read/write deadline
	used     bool      // has served a request: a failure before any response byte may be a stale keep-alive
}

// write writes the whole request; on the raw path it is written by the
// first read of the response (rawconn.Conn.Send), which reports its errors.
func (c *leanConn) write(b []byte) error {
	if c.raw != nil {
		c.raw.Send(b)
		return nil
	}
	_, err := c.c.Write(b)
	return err
}
