package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"runtime/debug"
	"syscall"
	"time"

	"github.com/loadlab/loadlab/internal/badinput"
	"github.com/loadlab/loadlab/internal/proxy"
)

func init() {
	register(command{
		name:    "proxy",
		summary: "run the playground proxy: worker pools, timeouts, breaker, stale fallbacks",
		order:   70,
		run:     runProxy,
	})
}

const proxyExamples = `  # Proxy with the pools and routes of proxy.yaml on a free loopback port
  # (prints "proxy listening on http://127.0.0.1:NNNN")
  loadlab proxy -config examples/proxy/belfrage.yaml -listen 127.0.0.1:0

  # Only check a config (errors name the file, line and field; exit 2)
  loadlab proxy -config proxy.yaml -check

  # Reload the config without dropping in-flight requests
  kill -HUP <pid>

  # Watch the pools, the breaker and who answered
  curl -s http://127.0.0.1:8081/status
  curl -s http://127.0.0.1:8081/metrics | grep loadlab_proxy_pool
  curl -si http://127.0.0.1:8081/news | grep X-Loadlab`

func runProxy(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) error {
	fs := newFlagSet("proxy", "-config file [flags]", proxyExamples, stderr)
	cfgFile := fs.String("config", "", "YAML config `file` with pools and routes (see docs/proxy.md); required")
	listen := fs.String("listen", "127.0.0.1:8081", "`address` to listen on; port 0 picks a free port")
	check := fs.Bool("check", false, "validate the config, print a summary and exit")
	grace := fs.Duration("shutdown-grace", 15*time.Second, "on SIGINT/SIGTERM, wait this long for in-flight requests")
	idle := fs.Duration("idle-timeout", 2*time.Minute, "close client keep-alive connections idle this long")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return badinput.Field("", "unexpected argument %q (the config goes in -config)", fs.Arg(0))
	}
	if *cfgFile == "" {
		return badinput.Field("-config", "a config file is required, e.g. -config examples/proxy/belfrage.yaml")
	}
	if *grace < 0 {
		return badinput.Field("-shutdown-grace", "want 0 or more, got %v", *grace)
	}
	if *idle <= 0 {
		return badinput.Field("-idle-timeout", "want a positive duration, got %v", *idle)
	}
	if _, _, err := net.SplitHostPort(*listen); err != nil {
		return badinput.Field("-listen", "want host:port, e.g. 127.0.0.1:8081: %v", err)
	}
	cfg, err := proxy.LoadConfig(*cfgFile)
	if err != nil {
		return err
	}
	if *check {
		fmt.Fprintf(stdout, "%s: ok, %s, %s\n", *cfgFile, plural(len(cfg.Pools), "pool"), plural(len(cfg.Routes), "route"))
		return nil
	}
	if os.Getenv("GOGC") == "" {
		// The proxy's live heap is small and its garbage per request
		// steady: collect less often than the default 100% so that GC
		// cycles do not sit in the latency tail (GOGC still overrides).
		debug.SetGCPercent(400)
	}
	p, err := proxy.New(cfg, proxy.Options{Logf: func(format string, a ...any) { fmt.Fprintf(stderr, format+"\n", a...) }})
	if err != nil {
		return err
	}
	defer p.Close()
	ln, err := net.Listen("tcp", *listen)
	if err != nil {
		return badinput.Field("-listen", "%v", err)
	}
	srv := &http.Server{
		Handler:           p,
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       *idle,
		ErrorLog:          nil,
	}
	fmt.Fprintf(stdout, "proxy listening on http://%s\n", ln.Addr())
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	defer signal.Stop(hup)
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	for {
		select {
		case <-hup:
			next, err := proxy.LoadConfig(*cfgFile)
			if err == nil {
				err = p.Reload(next)
			}
			if err != nil {
				fmt.Fprintf(stderr, "loadlab proxy: reload failed, keeping the running config: %v\n", err)
				continue
			}
			fmt.Fprintf(stderr, "loadlab proxy: reloaded %s (%s, %s)\n", *cfgFile, plural(len(next.Pools), "pool"), plural(len(next.Routes), "route"))
		case err := <-served:
			return err
		case <-ctx.Done():
			sctx, cancel := context.WithTimeout(context.Background(), *grace)
			err := srv.Shutdown(sctx)
			cancel()
			if errors.Is(err, context.DeadlineExceeded) {
				srv.Close()
				return fmt.Errorf("shutdown: requests still in flight after %v", *grace)
			}
			return err
		}
	}
}

// plural writes n with the noun, in the plural unless n is 1.
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
