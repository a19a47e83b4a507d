package http1

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/loadlab/loadlab/internal/targets"
)

// testLean returns a lean client for o, with the attack's defaults for
// what o leaves at zero (Timeout 30 s, 10,000 idle connections,
// keep-alive), and one session of it.
func testLean(o Options) (*leanClient, *Session) {
	if o.Timeout == 0 {
		o.Timeout = 30 * time.Second
	}
	if o.Connections == 0 {
		o.Connections = 10000
	}
	o.KeepAlive = true
	l := newLeanClient(&o)
	l.std, _ = newStdClient(&o)
	s := newSession(l.opts)
	s.rng = targets.NewRand(1)
	s.lean = l.newWorker()
	s.ctx = context.Background()
	return l, s
}

func TestProxyConnectHeaderGoesToTheTransport(t *testing.T) {
	o := Options{ProxyConnectHeader: http.Header{"Proxy-Authorization": {"Basic eDp5"}}}
	c, err := newStdClient(&o)
	if err != nil {
		t.Fatal(err)
	}
	if c.tr.ProxyConnectHeader.Get("Proxy-Authorization") != "Basic eDp5" || c.tr.Proxy == nil {
		t.Errorf("proxy header %v, proxy func set %v", c.tr.ProxyConnectHeader, c.tr.Proxy != nil)
	}
	if Lean(&o) {
		t.Error("a proxy header must select the net/http client")
	}
}
