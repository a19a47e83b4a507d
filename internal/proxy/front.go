package proxy

import (
	"context"
	"errors"
	"fmt"
	"net"
	"time"

	"github.com/loadlab/loadlab/internal/serve"
)

// Front says how the proxy's client side is served (see ServeFront).
type Front struct {
	// IdleTimeout closes client keep-alive connections idle this long
	// (0: 2 minutes).
	IdleTimeout time.Duration
	// ShutdownGrace is how long answers in progress may finish once the
	// context ends (0: none).
	ShutdownGrace time.Duration
}

// ServeFront serves p to clients on ln until ctx ends, with the lean
// HTTP/1.1 server the origin simulator uses (internal/http1 through internal/serve: raw system
// calls, heads parsed in place, one goroutine per connection): net/http's
// server serves only the connections the lean one hands over (chunked
// request bodies, Expect: 100-continue, Upgrade, HTTP/2). Heads beyond
// MaxHeaderBytes are answered 431. ServeFront closes ln; when answers were
// still in progress at the end of the grace it returns an error saying so.
func ServeFront(ctx context.Context, ln net.Listener, p *Proxy, f Front) error {
	idle := f.IdleTimeout
	if idle <= 0 {
		idle = 2 * time.Minute
	}
	grace := f.ShutdownGrace
	if grace <= 0 {
		grace = time.Nanosecond // serve's 0 means its default, 5 s
	}
	err := serve.ServeLean(ctx, ln, serve.Config{
		IdleTimeout:       idle,
		ReadHeaderTimeout: 10 * time.Second,
		ShutdownTimeout:   grace,
		MaxHeaderBytes:    MaxHeaderBytes,
	}, p, nil)
	if errors.Is(err, serve.ErrShutdownCut) {
		return fmt.Errorf("shutdown: requests still in flight after %v", f.ShutdownGrace)
	}
	return err
}
