//go:build !linux || loadlab_portable

package harvest

import (
	"context"
	"errors"
	"net"
	"time"
)

// ErrUnsupported is returned by New where there is no harvesting poller.
var ErrUnsupported = errors.New("harvest: not supported on this system")

// Poller is not available on this system.
type Poller struct{}

// New fails: harvesting needs Linux (epoll and SO_TIMESTAMPNS).
func New() (*Poller, error) { return nil, ErrUnsupported }

// Dial is never called where New fails.
func (p *Poller) Dial(ctx context.Context, addr string, timeout time.Duration) (net.Conn, error) {
	return nil, ErrUnsupported
}

// Harvest does nothing.
func (p *Poller) Harvest() int { return 0 }

// Abort does nothing.
func (p *Poller) Abort() {}

// Close does nothing.
func (p *Poller) Close() error { return nil }

// Received reports nothing: there are no harvest connections here.
func Received(c net.Conn) time.Time { return time.Time{} }
