package leanserver

import (
	"time"

	"github.com/loadlab/loadlab/internal/rawconn"
)

// watchRead is the size of a watcher's read: the least room the serve
// loop leaves for a head read, so that a read handed over (see
// reqCtx.stop) fits.
const watchRead = minHeadRead

// minHeadRead is the least room a head read gets in the connection's
// buffer.
const minHeadRead = 1024

// watchReadInto is a watcher's read of the connection: raw system calls
// through access of its own (the answer is written through rw meanwhile),
// with the kernel's receive time of what came when the connection has
// them, else net.Conn's Read and now.
func (c *serverConn) watchReadInto(p []byte) (int, time.Time, error) {
	if c.raw != nil && c.watchRaw == nil {
		if c.watchRaw = rawconn.New(c.nc); c.watchRaw != nil && c.stamp {
			_ = c.watchRaw.EnableStamps()
		}
	}
	if w := c.watchRaw; w != nil {
		n, rx, err := w.ReadStamped(p)
		now := time.Now()
		if at := rawconn.Arrival(rx, now, time.Second); !at.IsZero() {
			now = at
		}
		return n, now, err
	}
	n, err := c.nc.Read(p)
	return n, time.Now(), err
}
