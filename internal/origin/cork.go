package origin

import (
	"context"
	"net"
	"net/http"
	"syscall"
)

type connKey struct{}

// ConnContext records the connection in the request context. Install it as
// http.Server.ConnContext: the simulator then corks the TCP connection
// (TCP_CORK, like nginx's tcp_nopush) while it writes a large answer, so
// headers and body leave in full segments instead of a small one first.
// Without it the answers are the same, only a little more costly.
func ConnContext(ctx context.Context, c net.Conn) context.Context {
	return context.WithValue(ctx, connKey{}, c)
}

// corker sets TCP_CORK on the request's connection; uncork undoes it.
type corker struct{ raw syscall.RawConn }

func corkFor(r *http.Request) *corker {
	tc, ok := r.Context().Value(connKey{}).(*net.TCPConn)
	if !ok {
		return nil
	}
	raw, err := tc.SyscallConn()
	if err != nil {
		return nil
	}
	c := &corker{raw: raw}
	if !c.set(1) {
		return nil
	}
	return c
}

func (c *corker) uncork() {
	if c != nil {
		c.set(0)
	}
}

func (c *corker) set(v int) bool {
	var serr error
	err := c.raw.Control(func(fd uintptr) {
		serr = syscall.SetsockoptInt(int(fd), syscall.IPPROTO_TCP, syscall.TCP_CORK, v)
	})
	return err == nil && serr == nil
}
