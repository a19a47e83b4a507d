package serve

import (
	"bytes"
	"encoding/base64"
	"io"
	"net"
	"net/http"
	"sync"
	"time"

	"golang.org/x/net/http/httpguts"
	"golang.org/x/net/http2"

	"github.com/loadlab/loadlab/internal/http1/leanserver"
)

// h2cUpgrade serves HTTP/2 to HTTP/1.1 clients that ask for it with
// "Upgrade: h2c" (RFC 7540 section 3.2, what curl --http2 does on http://
// URLs); net/http's server does prior knowledge only. It does what the
// deprecated golang.org/x/net/http2/h2c package did: answer 101, then
// serve the connection with x/net's HTTP/2 server, the upgrading request
// as stream 1. Upgraded connections are closed by closeAll at shutdown.
type h2cUpgrade struct {
	h http.Handler
	//lint:ignore SA1019 net/http has no way to serve an upgraded connection (ServeConnOpts.UpgradeRequest).
	s  http2.Server
	mu sync.Mutex
	// conns are the upgraded connections being served; nil after closeAll.
	conns  map[net.Conn]struct{}
	closed bool
	wg     sync.WaitGroup // upgraded connections being served
}

// maxUpgradeBody is the largest body of an upgrading request (it is read
// before the switch, as RFC 7540 section 3.2 requires).
const maxUpgradeBody = 1 << 20

func (u *h2cUpgrade) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	settings, ok := h2cSettings(r)
	if !ok {
		u.h.ServeHTTP(w, r)
		return
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, maxUpgradeBody+1))
	if err != nil {
		return
	}
	if len(body) > maxUpgradeBody {
		u.h.ServeHTTP(w, r) // too big to hold: answer over HTTP/1.1
		return
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	conn, rw, err := http.NewResponseController(w).Hijack()
	if err != nil {
		return
	}
	_ = conn.SetDeadline(time.Time{})
	_, _ = rw.WriteString("HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: h2c\r\n\r\n")
	if err := rw.Flush(); err != nil {
		_ = conn.Close()
		return
	}
	if n := rw.Reader.Buffered(); n > 0 { // the client's preface, already read
		b, _ := rw.Reader.Peek(n)
		conn = leanserver.Replay(conn, bytes.Clone(b))
	}
	if !u.track(conn, true) {
		_ = conn.Close()
		return
	}
	defer u.track(conn, false)
	defer conn.Close()
	base, _ := r.Context().Value(http.ServerContextKey).(*http.Server)
	//lint:ignore SA1019 net/http has no way to serve an upgraded connection (ServeConnOpts.UpgradeRequest).
	u.s.ServeConn(conn, &http2.ServeConnOpts{
		Context:        r.Context(),
		BaseConfig:     base,
		Handler:        u.h,
		UpgradeRequest: r,
		Settings:       settings,
	})
}

// h2cSettings returns the decoded HTTP2-Settings of an h2c upgrade
// request; ok is false when r does not ask for one (properly).
func h2cSettings(r *http.Request) (settings []byte, ok bool) {
	if r.ProtoMajor != 1 ||
		!httpguts.HeaderValuesContainsToken(r.Header["Upgrade"], "h2c") ||
		!httpguts.HeaderValuesContainsToken(r.Header["Connection"], "HTTP2-Settings") {
		return nil, false
	}
	vals := r.Header["Http2-Settings"]
	if len(vals) != 1 {
		return nil, false
	}
	b, err := base64.RawURLEncoding.DecodeString(vals[0])
	if err != nil {
		return nil, false
	}
	return b, true
}

// track adds (or removes) an upgraded connection; adding fails after
// closeAll.
func (u *h2cUpgrade) track(c net.Conn, add bool) bool {
	u.mu.Lock()
	defer u.mu.Unlock()
	if !add {
		delete(u.conns, c)
		u.wg.Done()
		return true
	}
	if u.closed {
		return false
	}
	if u.conns == nil {
		u.conns = map[net.Conn]struct{}{}
	}
	u.conns[c] = struct{}{}
	u.wg.Add(1)
	return true
}

// closeAll closes the upgraded connections (their handlers were released
// by then), refuses new upgrades and waits until they are done.
func (u *h2cUpgrade) closeAll() {
	if u == nil {
		return
	}
	u.mu.Lock()
	u.closed = true
	for c := range u.conns {
		_ = c.Close()
	}
	u.mu.Unlock()
	u.wg.Wait()
}
