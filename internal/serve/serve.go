// Package serve runs an HTTP handler for loadlab's servers, the origin
// simulator and the proxy: on a given (default loopback) address, over
// HTTP/1.1, h2c or TLS with a certificate made at start, with keep-alive
// limits and graceful shutdown when a context ends. By default HTTP/1.1 is
// served by a lean server (raw system calls, heads parsed in place) that
// hands the connections it does not serve itself to net/http's.
package serve

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/loadlab/loadlab/internal/badinput"
	"github.com/loadlab/loadlab/internal/fdtable"
	"github.com/loadlab/loadlab/internal/http1/leanserver"
)

// Config says how to serve. The zero value serves HTTP/1.1 with keep-alive
// on a random loopback port.
type Config struct {
	Listen string // host:port; "" means 127.0.0.1:0
	// H2C also accepts HTTP/2 without TLS (prior knowledge).
	H2C bool
	// TLS serves HTTPS (HTTP/2 and HTTP/1.1 by ALPN) with a self-signed
	// certificate made at start for the listen host, localhost, 127.0.0.1
	// and ::1.
	TLS bool
	// CertOut, when set with TLS, is where the certificate is written (PEM)
	// so clients can trust it.
	CertOut string
	// NoKeepAlive closes every HTTP/1 connection after one request.
	NoKeepAlive bool
	// MaxConnRequests closes a connection after it served this many
	// requests (0: no limit).
	MaxConnRequests int64
	// IdleTimeout closes keep-alive connections idle this long (0: 2 min).
	IdleTimeout time.Duration
	// ReadHeaderTimeout bounds reading request headers (0: 30 s).
	ReadHeaderTimeout time.Duration
	// ShutdownTimeout bounds the graceful shutdown (0: 5 s).
	ShutdownTimeout time.Duration
	// Std serves every connection with net/http's server. Otherwise (the
	// default, without TLS) the lean server (package http1) serves HTTP/1.1
	// and hands a connection to net/http's server when it needs what the
	// lean one does not do (chunked bodies, Expect, HTTP/2, Upgrade...).
	// TLS is always served by net/http's server.
	Std bool
	// ConnContext, when set, adds per-connection values to request
	// contexts, on either server.
	ConnContext func(ctx context.Context, c net.Conn) context.Context
	// StdConnContext, when set, adds per-connection values to the request
	// contexts of the connections net/http's server serves (TLS, Std, and
	// those the lean server hands over): what only its separate writes of
	// head and body need, such as origin.ConnContext's TCP_CORK (the lean
	// server sends head and file together, MSG_MORE).
	StdConnContext func(ctx context.Context, c net.Conn) context.Context
	// MaxHeaderBytes bounds request heads on connections handed to
	// net/http's server (0: net/http's 1 MB). The lean server hands over
	// heads beyond 64 KiB, so a limit of 64 KiB answers them 431.
	MaxHeaderBytes int
}

// ErrShutdownCut is returned by ServeLean when answers were still in
// progress at the end of the shutdown timeout: their connections were
// closed.
var ErrShutdownCut = leanserver.ErrShutdownCut

type connCount struct{}

// ServeLean serves h on ln with the lean HTTP/1.1 server, and net/http's
// for the connections handed to it, until ctx ends (cfg.Listen, TLS and
// Std are not used). It closes ln. It returns ErrShutdownCut when answers
// in progress had to be cut at the end of cfg.ShutdownTimeout.
func ServeLean(ctx context.Context, ln net.Listener, cfg Config, h http.Handler, beforeShutdown func()) error {
	fdtable.Reserve(fdtable.Size) // no table growth, and its stall, while serving
	return serveLean(ctx, ln, cfg, h, beforeShutdown)
}

// Run serves h until ctx ends, then calls beforeShutdown (if not nil; it
// should release long-running handlers) and shuts down gracefully. ready is
// called with the base URL once the listener is open.
func Run(ctx context.Context, cfg Config, h http.Handler, ready func(url string), beforeShutdown func()) error {
	fdtable.Reserve(fdtable.Size) // no table growth, and its stall, while serving
	addr := cfg.Listen
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		// A port in use or a bad address is the user's to fix: exit 2, as
		// the proxy does.
		return badinput.Field("-listen", "%v", err)
	}
	if !cfg.Std && !cfg.TLS {
		if ready != nil {
			ready("http://" + ln.Addr().String())
		}
		err := serveLean(ctx, ln, cfg, h, beforeShutdown)
		if errors.Is(err, ErrShutdownCut) {
			err = nil // as net/http's: the simulator's answers are cut short
		}
		return err
	}
	srv, up := stdServer(cfg, h)
	scheme := "http"
	if cfg.TLS {
		host, _, _ := net.SplitHostPort(ln.Addr().String())
		cert, err := selfSigned(host, cfg.CertOut)
		if err != nil {
			ln.Close()
			return fmt.Errorf("making the TLS certificate: %w", err)
		}
		srv.TLSConfig = &tls.Config{Certificates: []tls.Certificate{cert}, NextProtos: []string{"h2", "http/1.1"}}
		ln = tls.NewListener(ln, srv.TLSConfig)
		scheme = "https"
	}
	if ready != nil {
		ready(scheme + "://" + ln.Addr().String())
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	if beforeShutdown != nil {
		beforeShutdown()
	}
	sctx, cancel := context.WithTimeout(context.Background(), or(cfg.ShutdownTimeout, 5*time.Second))
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		_ = srv.Close()
	}
	up.closeAll()
	if err := <-errc; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// stdServer is net/http's server for cfg: keep-alive limits and, with H2C,
// HTTP/2 by prior knowledge and by Upgrade: h2c (up, nil without H2C,
// serves the upgraded connections; up.closeAll ends them at shutdown).
func stdServer(cfg Config, h http.Handler) (srv *http.Server, up *h2cUpgrade) {
	h = limitConn(h, cfg.MaxConnRequests)
	if cfg.H2C && !cfg.TLS {
		up = &h2cUpgrade{h: h}
		h = up
	}
	srv = &http.Server{
		Handler:           h,
		IdleTimeout:       or(cfg.IdleTimeout, 2*time.Minute),
		ReadHeaderTimeout: or(cfg.ReadHeaderTimeout, 30*time.Second),
		MaxHeaderBytes:    cfg.MaxHeaderBytes,
	}
	srv.ConnContext = func(ctx context.Context, c net.Conn) context.Context {
		if cfg.MaxConnRequests > 0 {
			n := new(atomic.Int64)
			n.Store(leanserver.HandedServed(c)) // requests the lean server answered, if it handed c over
			ctx = context.WithValue(ctx, connCount{}, n)
		}
		if cfg.ConnContext != nil {
			ctx = cfg.ConnContext(ctx, c)
		}
		if cfg.StdConnContext != nil {
			ctx = cfg.StdConnContext(ctx, c)
		}
		return ctx
	}
	srv.SetKeepAlivesEnabled(!cfg.NoKeepAlive)
	if cfg.H2C && !cfg.TLS {
		p := new(http.Protocols)
		p.SetHTTP1(true)
		p.SetUnencryptedHTTP2(true)
		srv.Protocols = p
	}
	return srv, up
}

// limitConn asks the client to close a connection once it served max
// requests ("Connection: close" on HTTP/1; GOAWAY on HTTP/2).
func limitConn(h http.Handler, max int64) http.Handler {
	if max <= 0 {
		return h
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if n, ok := r.Context().Value(connCount{}).(*atomic.Int64); ok && n.Add(1) >= max {
			w.Header().Set("Connection", "close")
		}
		h.ServeHTTP(w, r)
	})
}

func or(d, def time.Duration) time.Duration {
	if d > 0 {
		return d
	}
	return def
}

// serveLean serves h on ln with the lean server (package http1) and, for
// the connections it hands over, net/http's server as stdServer makes it.
func serveLean(ctx context.Context, ln net.Listener, cfg Config, h http.Handler, beforeShutdown func()) error {
	std, up := stdServer(cfg, h)
	lean := leanserver.Config{
		NoKeepAlive: cfg.NoKeepAlive, MaxConnRequests: cfg.MaxConnRequests,
		IdleTimeout: cfg.IdleTimeout, ReadHeaderTimeout: cfg.ReadHeaderTimeout,
		ShutdownTimeout: cfg.ShutdownTimeout, ConnContext: cfg.ConnContext,
	}
	return leanserver.Serve(ctx, ln, lean, h, std, beforeShutdown, up.closeAll)
}

// Validate checks c as Run would use it. An error is bad input naming the
// command-line flag that sets the field (-listen, -max-conn-requests,
// -idle-timeout, -tls-cert).
func (c Config) Validate() error {
	if c.MaxConnRequests < 0 {
		return badinput.Field("-max-conn-requests", "want 0 or more, got %d", c.MaxConnRequests)
	}
	if c.IdleTimeout < 0 {
		return badinput.Field("-idle-timeout", "want a positive duration, got %v", c.IdleTimeout)
	}
	if c.CertOut != "" && !c.TLS {
		return badinput.Field("-tls-cert", "only makes sense with -tls")
	}
	if c.Listen == "" {
		return nil
	}
	if _, port, err := net.SplitHostPort(c.Listen); err != nil {
		return badinput.Field("-listen", "want host:port, e.g. 127.0.0.1:8080: %v", err)
	} else if n, err := strconv.Atoi(port); port != "" && (err != nil || n < 0 || n > 65535) {
		return badinput.Field("-listen", "port %q is not a number between 0 and 65535", port)
	}
	return nil
}
