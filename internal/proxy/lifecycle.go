package proxy

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/signal"
	"runtime/debug"
	"strings"
	"syscall"
	"time"

	"github.com/loadlab/loadlab/internal/proxy/config"
)

// ServeOptions say how Serve runs the proxy.
type ServeOptions struct {
	// ConfigFile is the config, read at start and again on every SIGHUP.
	ConfigFile string
	// Config, when set, is ConfigFile already loaded (e.g. validated by
	// the caller); otherwise Serve loads it.
	Config *config.Config
	// Listen is host:port; port 0 picks a free port.
	Listen string
	// ShutdownGrace is how long in-flight requests may finish once ctx
	// ends (0: none).
	ShutdownGrace time.Duration
	// IdleTimeout closes client keep-alive connections idle this long
	// (0: 2 minutes).
	IdleTimeout time.Duration
	// ClientBodyTimeout and MaxRequestBody bound the reading of request
	// bodies (see Options).
	ClientBodyTimeout time.Duration
	MaxRequestBody    int64
	// Ready, when set, is called with the base URL once the listener is
	// open.
	Ready func(url string)
	// Logf, when set, receives reloads, failed reloads and the upstream
	// error lines (see Options.Logf).
	Logf func(format string, args ...any)
	// Upstream, when set, points every route at this upstream, at start
	// and after every reload (Config.SetUpstream; -upstream).
	Upstream string
}

// load reads the config file and applies the -upstream override.
func (opts ServeOptions) load() (*config.Config, error) {
	cfg, err := config.Load(opts.ConfigFile)
	if err != nil || opts.Upstream == "" {
		return cfg, err
	}
	if err := cfg.SetUpstream(opts.Upstream); err != nil {
		return nil, fmt.Errorf("%s: -upstream: %w", opts.ConfigFile, err)
	}
	return cfg, nil
}

// Serve runs the proxy until ctx ends, then shuts down gracefully: it
// listens, reloads the config on SIGHUP without dropping in-flight
// requests (a config that fails to load is logged and the running one
// kept), and sets a garbage-collection target suited to a proxy unless
// GOGC is set. A listen error is a *net.OpError whose Op is "listen".
func Serve(ctx context.Context, opts ServeOptions) error {
	logf := opts.Logf
	if logf == nil {
		logf = func(string, ...any) {}
	}
	cfg := opts.Config
	if cfg == nil {
		var err error
		if cfg, err = opts.load(); err != nil {
			return err
		}
	}
	if os.Getenv("GOGC") == "" {
		// The proxy's live heap is small and its garbage per request
		// steady: collect less often than the default 100% so that GC
		// cycles do not sit in the latency tail (GOGC still overrides).
		debug.SetGCPercent(400)
	}
	p, err := New(cfg, Options{Logf: opts.Logf, ClientBodyTimeout: opts.ClientBodyTimeout, MaxRequestBody: opts.MaxRequestBody})
	if err != nil {
		return err
	}
	defer p.Close()
	// No TCP keep-alive probes on client connections (Go's listener
	// turns them on, four system calls per accepted connection): an idle
	// connection ends at the idle timeout, and a client that closes during
	// a request is seen by the lean server's watch.
	ln, err := (&net.ListenConfig{KeepAlive: -1}).Listen(context.Background(), "tcp", opts.Listen)
	if err != nil {
		return err
	}
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	defer signal.Stop(hup)
	if opts.Ready != nil {
		opts.Ready("http://" + ln.Addr().String())
	}
	fctx, stop := context.WithCancel(context.Background())
	defer stop()
	served := make(chan error, 1)
	go func() {
		served <- ServeFront(fctx, ln, p, Front{IdleTimeout: opts.IdleTimeout, ShutdownGrace: opts.ShutdownGrace})
	}()
	for {
		select {
		case <-hup:
			next, err := opts.load()
			if err == nil {
				err = p.Reload(next)
			}
			if err != nil {
				logf("loadlab proxy: reload failed, keeping the running config: %v", err)
				continue
			}
			logf("loadlab proxy: reloaded %s (%s)", opts.ConfigFile, Describe(next))
		case err := <-served:
			return err
		case <-ctx.Done():
			stop()
			return <-served
		}
	}
}

// Describe counts a config's pools and routes and names its upstreams:
// "1 pool, 3 routes to http://127.0.0.1:8080".
func Describe(cfg *config.Config) string {
	return plural(len(cfg.Pools), "pool") + ", " + plural(len(cfg.Routes), "route") + " to " + strings.Join(cfg.Upstreams(), ", ")
}

// plural writes n with the noun, in the plural unless n is 1.
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
