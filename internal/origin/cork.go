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
// (TCP_CORK, like nginx's tcp_nopush; TCP_NOPUSH on FreeBSD, OpenBSD and
// DragonFly) while it writes a large answer, so headers and body leave in
// full segments instead of a small one first. Without it the answers are
// the same, only a little more costly. macOS and Windows are never corked:
// Windows has no such option, and macOS's TCP_NOPUSH does not send what it
// held back when it is cleared (XNU only clears the flag), so the end of an
// answer could wait for the next acknowledgement or the persist timer.
func ConnContext(ctx context.Context, c net.Conn) context.Context {
	return context.WithValue(ctx, connKey{}, c)
}

// corker corks the request's connection (setCork); uncork undoes it.
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
		serr = setCork(fd, v)
	})
	return err == nil && serr == nil
}
