package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"runtime"
	"time"

	"github.com/loadlab/loadlab/internal/badinput"
	"github.com/loadlab/loadlab/internal/proxy"
	"github.com/loadlab/loadlab/internal/proxy/config"
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

  # The same config in front of an origin on another port
  loadlab proxy -config examples/proxy/belfrage.yaml -upstream http://127.0.0.1:9090 -listen 127.0.0.1:0

  # Only check a config (errors name the file, line and field; exit 2):
  # prints its pools, routes and upstreams
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
	check := fs.Bool("check", false, "validate the config, print a summary (pools, routes, upstreams) and exit")
	upstream := fs.String("upstream", "", "send every route to this upstream `URL` (e.g. http://127.0.0.1:8080), keeping each route's base path; for configs whose routes share one upstream")
	grace := fs.Duration("shutdown-grace", 15*time.Second, "on SIGINT/SIGTERM, wait this long for in-flight requests")
	idle := fs.Duration("idle-timeout", 2*time.Minute, "close client keep-alive connections idle this long")
	bodyTimeout := fs.Duration("client-body-timeout", proxy.DefaultClientBodyTimeout, "request bodies are read whole before a pool worker is taken, as nginx buffers them: a client\n"+
		"sending no byte of its body for this long gets 408 (nginx's client_body_timeout)")
	maxBody := fs.Int64("max-request-body", proxy.DefaultMaxRequestBody, "request bodies larger than this many `bytes` get 413 (nginx's client_max_body_size)")
	procs := fs.Int("procs", 1, "cores the proxy may run on at once (Go's GOMAXPROCS; 0: every core). On one core it spends about 30 µs of CPU\n"+
		"per request, half of what the wake-ups between threads cost on two (bench/HISTORY.md, proxy); without -procs,\n"+
		"a GOMAXPROCS variable in the environment is kept")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *procs < 0 {
		return badinput.Field("-procs", "want 0 (every core) or more, got %d", *procs)
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
	if *bodyTimeout <= 0 {
		return badinput.Field("-client-body-timeout", "want a positive duration, got %v", *bodyTimeout)
	}
	if *maxBody <= 0 {
		return badinput.Field("-max-request-body", "want a positive number of bytes, got %d", *maxBody)
	}
	if *idle <= 0 {
		return badinput.Field("-idle-timeout", "want a positive duration, got %v", *idle)
	}
	if _, _, err := net.SplitHostPort(*listen); err != nil {
		return badinput.Field("-listen", "want host:port, e.g. 127.0.0.1:8081: %v", err)
	}
	cfg, err := config.Load(*cfgFile)
	if err != nil {
		return err
	}
	if *upstream != "" {
		if err := cfg.SetUpstream(*upstream); err != nil {
			return badinput.Field("-upstream", "%v", err)
		}
	}
	if *check {
		fmt.Fprintf(stdout, "%s: ok, %s\n", *cfgFile, proxy.Describe(cfg))
		return nil
	}
	if flagSet(fs, "procs") || os.Getenv("GOMAXPROCS") == "" {
		n := *procs
		if n == 0 {
			n = runtime.NumCPU()
		}
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(n)) // restored for in-process callers (tests)
	}
	err = proxy.Serve(ctx, proxy.ServeOptions{
		ConfigFile:        *cfgFile,
		Config:            cfg,
		Listen:            *listen,
		ShutdownGrace:     *grace,
		IdleTimeout:       *idle,
		Upstream:          *upstream,
		ClientBodyTimeout: *bodyTimeout,
		MaxRequestBody:    *maxBody,
		Ready:             func(url string) { fmt.Fprintf(stdout, "proxy listening on %s (%s)\n", url, proxy.Describe(cfg)) },
		Logf:              func(format string, a ...any) { fmt.Fprintf(stderr, format+"\n", a...) },
	})
	var op *net.OpError
	if errors.As(err, &op) && op.Op == "listen" {
		return badinput.Field("-listen", "%v", err)
	}
	return err
}
