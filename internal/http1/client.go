package http1

import (
	"compress/gzip"
	"context"
	"crypto/tls"
	"net"
	"net/http"
	"time"

	"github.com/loadlab/loadlab/internal/harvest"
	"github.com/loadlab/loadlab/internal/targets"
)

// Client sends one rendered target at a time and returns what the wire
// saw (an Exchange): the attack's seam to the wire. NewClient returns one
// of two implementations, chosen once from the options: the lean client
// (loadlab's own HTTP/1.1 code, which hands what it does not do to
// net/http itself) or net/http's. docs/http1.md lists what each supports.
type Client interface {
	// Do sends target t for request seq through session s (one sender's
	// buffers) and fills x with what the wire saw (x.Due is the caller's:
	// it goes to Options.OnSent). ctx ends the request early (the
	// attack's hard stop).
	Do(ctx context.Context, s *Session, t *targets.Target, seq uint64, x *Exchange)
	// NewSession returns the state of one sender (a worker): buffers and
	// a random source, reused for every request it sends.
	NewSession() *Session
	// Poller is the harvest poller answers are read through at the
	// pacer's wake-ups (Options.Harvest), nil when there is none.
	Poller() *harvest.Poller
	// Abort makes every read, write or dial in flight fail now.
	Abort()
	// Close closes the idle connections and releases the poller; call it
	// once every request is done.
	Close()
	// Conns is how many connections the lean client holds open (0 for
	// net/http's, which does not say).
	Conns() int
}

// Options configure a Client.
type Options struct {
	Timeout        time.Duration // per request, 0 = none
	Connections    int           // idle connections kept per host
	MaxConnections int           // connections per host, 0 = unlimited (net/http only)
	KeepAlive      bool          // reuse connections
	HTTP2          bool          // HTTP/2 over TLS when the server offers it (net/http only)
	H2C            bool          // HTTP/2 without TLS, prior knowledge (net/http only)
	Insecure       bool          // skip TLS certificate checks
	Redirects      int           // redirects to follow; -1 = return the 3xx as is
	MaxBody        int64         // answer body bytes kept in Exchange.Body: 0 none, -1 all
	// Harvest makes the lean client read answers through a harvest
	// poller (see package harvest; paced attacks only).
	Harvest bool
	Seed    uint64 // seeds every templated part of every request (targets.PartSeed)
	// Std asks for net/http's client for every request ("-client std").
	Std bool
	// Header is added to requests whose target has no such header.
	Header http.Header
	// Chunked sends bodies with chunked transfer encoding (net/http only).
	Chunked bool
	// Dial and TLS, when set, replace the default dialer and TLS
	// configuration (vegeta's connection flags); either makes the client
	// net/http's, which implements them all.
	Dial func(ctx context.Context, network, addr string) (net.Conn, error)
	TLS  *tls.Config
	// ProxyConnectHeader is sent with each CONNECT to an HTTP proxy.
	ProxyConnectHeader http.Header
	// OnSent, when set, is called as each request goes out, with the
	// result's due time and the send time.
	OnSent func(due, sent time.Time)
}

// NewClient returns the client for o, deciding once: the lean client
// when o allows it (Lean), net/http's otherwise.
func NewClient(o Options) (Client, error) {
	std, err := newStdClient(&o)
	if err != nil {
		return nil, err
	}
	if !Lean(&o) {
		return std, nil
	}
	lean := newLeanClient(&o)
	lean.std = std
	return &leanFirst{lean: lean, std: std}, nil
}

// Lean reports whether o lets the lean client serve plain http://
// requests: not with Std, H2C, MaxConnections, Chunked, Dial, TLS or
// ProxyConnectHeader, and not with an HTTP proxy in the environment
// (HTTP_PROXY, which net/http and vegeta honour for http:// targets):
// the lean client speaks to origins only.
func Lean(o *Options) bool {
	return !o.Std && !o.H2C && o.MaxConnections == 0 && !o.Chunked && o.Dial == nil && o.TLS == nil &&
		o.ProxyConnectHeader == nil && !envHTTPProxy()
}

// Session is one sender's state: its buffers and random source, reused
// for every request, so rendering templates allocates nothing. It is not
// safe for concurrent use.
type Session struct {
	o    *Options
	ctx  context.Context // of the request in progress
	rng  *targets.Rand
	url  []byte // rendered URL
	tmp  []byte // rendered header value or body
	read []byte // body read buffer
	lean *leanWorker
	gz   *gzip.Reader // reused to decompress gzip answers (lean client)
	// Vars are the values of a flow session's variables, by slot, for
	// the templates of the next request (see targets.CompileNames); nil
	// outside flows. The caller checks them (targets.SafeFor).
	Vars []string
	// KeepFields makes the client keep the answer's header fields in
	// Exchange.Fields (a flow's captures and checks read them).
	KeepFields bool
	// KeepBody, when not 0, replaces Options.MaxBody for this session's
	// next requests: how many body bytes Exchange.Body keeps (-1 all).
	KeepBody int64
}

// readBufSize is the per-session buffer bodies are read through.
const readBufSize = 32 << 10

func newSession(o *Options) *Session {
	return &Session{o: o, rng: targets.NewRand(0)}
}

// urlString renders t's URL for request seq.
func (w *Session) urlString(t *targets.Target, seq uint64) string {
	if t.URL.Static() {
		return t.URL.Text()
	}
	w.url = t.URL.AppendSession(w.url[:0], w.rng, w.o.Seed, seq, targets.PartURL, w.Vars)
	return string(w.url)
}

// keepLimit is how many body bytes Exchange.Body keeps: 0 none, -1 all
// (bodies are always read to the end and counted in BytesIn).
func (w *Session) keepLimit() int64 {
	if w.KeepBody != 0 {
		return w.KeepBody
	}
	return w.o.MaxBody
}

// sentNow stamps the send time and tells OnSent.
func (w *Session) sentNow(r *Exchange) {
	r.Sent = time.Now()
	if w.o.OnSent != nil {
		w.o.OnSent(r.Due, r.Sent)
	}
}

// leanFirst is the lean client with net/http's behind it: the lean
// client sends what it does (plain http:// targets whose request it can
// write as net/http would) and hands the rest to net/http, request by
// request, in this one place.
type leanFirst struct {
	lean *leanClient
	std  *stdClient
}

func (c *leanFirst) Do(ctx context.Context, s *Session, t *targets.Target, seq uint64, r *Exchange) {
	s.ctx = ctx
	if !s.lean.do(s, t, seq, r) {
		c.std.Do(ctx, s, t, seq, r)
	}
}

func (c *leanFirst) NewSession() *Session {
	s := newSession(c.lean.opts)
	s.lean = c.lean.newWorker()
	return s
}

func (c *leanFirst) Poller() *harvest.Poller { return c.lean.poll }

func (c *leanFirst) Abort() { c.lean.abortAll() }

func (c *leanFirst) Close() {
	c.std.Close()
	c.lean.close()
}

func (c *leanFirst) Conns() int {
	c.lean.mu.Lock()
	defer c.lean.mu.Unlock()
	return len(c.lean.live)
}
