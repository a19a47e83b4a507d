package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/loadlab/loadlab/internal/badinput"
	"github.com/loadlab/loadlab/internal/origin"
	"github.com/loadlab/loadlab/internal/serve"
)

func init() {
	register(command{
		name:    "origin",
		summary: "run a flaky upstream origin (origin_simulator recipes, faults, overrides)",
		order:   60,
		run:     runOrigin,
	})
}

const originExamples = `  # Serve a recipe of bbc/origin_simulator unchanged, on loopback port 8080
  loadlab origin -recipe recipe.json -listen 127.0.0.1:8080

  # Pick a free port (the address is printed on stdout), repeatable draws
  loadlab origin -recipe recipe.json -listen 127.0.0.1:0 -seed 7

  # Change the recipe while running, as with origin_simulator
  curl -X POST -d @recipe.json http://127.0.0.1:8080/_admin/add_recipe

  # One-off overrides (unless -no-overrides)
  curl 'http://127.0.0.1:8080/news?delay=2s&status=503'
  curl -H 'X-Origin-Fault: reset' http://127.0.0.1:8080/news

  # Recipes whose "origin" URL cannot be fetched here (no internet): serve
  # 100 kB of stand-in content per URL, or a saved page for one of them
  loadlab origin -recipe recipe.json -origin-offline
  loadlab origin -recipe recipe.json -origin-offline -origin-file https://www.bbc.co.uk/news=news.html

  # Only net/http's server (the default lean one hands it what it does not do)
  loadlab origin -recipe recipe.json -server std

  # Also HTTP/2 without TLS (prior knowledge, or Upgrade: h2c as curl --http2)
  loadlab origin -recipe recipe.json -h2c

  # HTTP/2 over TLS with a fresh certificate, admin API behind a token
  LOADLAB_ORIGIN_TOKEN=s3cret loadlab origin -tls -tls-cert /tmp/origin.pem
  curl --cacert /tmp/origin.pem -H 'Authorization: Bearer s3cret' https://127.0.0.1:8080/_admin/routes`

func runOrigin(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) error {
	fs := newFlagSet("origin", "[flags]", originExamples, stderr)
	recipeFile := fs.String("recipe", "", "recipe `file` to load at start (origin_simulator JSON); without it the welcome recipe is served")
	listen := fs.String("listen", "127.0.0.1:8080", "`address` to listen on; port 0 picks a free port")
	seed := fs.Int64("seed", 0, "seed for random bodies and per-request draws; 0 picks one from the clock (printed)")
	noOverrides := fs.Bool("no-overrides", false, "ignore per-request overrides (?delay=, ?status=, ?fault=, X-Origin-* headers)")
	token := fs.String("admin-token", "", "bearer `token` required on /_admin/* (default $LOADLAB_ORIGIN_TOKEN)")
	maxRecipe := fs.String("max-recipe-size", "10mb", "largest recipe accepted, as `size` (b, kb, mb)")
	h2c := fs.Bool("h2c", false, "also accept HTTP/2 without TLS: prior knowledge, or Upgrade: h2c (curl --http2 on http://)")
	useTLS := fs.Bool("tls", false, "serve HTTPS (HTTP/2 and HTTP/1.1) with a self-signed certificate made at start")
	certOut := fs.String("tls-cert", "", "with -tls, write the certificate (PEM) to this `file` for clients to trust")
	noKeepAlive := fs.Bool("no-keepalive", false, "close every HTTP/1 connection after one request")
	maxConnReq := fs.Int64("max-conn-requests", 0, "close a connection after it served `n` requests (0: no limit)")
	idle := fs.Duration("idle-timeout", 2*time.Minute, "close keep-alive connections idle this long")
	server := fs.String("server", "lean", "server `kind`: lean (HTTP/1.1 with less CPU per answer; it hands connections it does not serve, e.g. chunked bodies, Expect, HTTP/2, to net/http's server) or std (net/http's only). -tls always uses std. See docs/origin.md")
	quiet := fs.Bool("quiet", false, "do not log recipe loads and stage switches on stderr")
	offline := fs.Bool("origin-offline", false, "do not fetch recipes' origin URLs: serve -offline-size bytes of stand-in content for each (said in the log)")
	offlineSize := fs.String("offline-size", "100kb", "with -origin-offline, the stand-in body's `size`")
	var originFiles, adminHosts listFlag
	fs.Var(&originFiles, "origin-file", "serve a local file for a recipe's origin URL instead of fetching it, as `URL=FILE` (repeatable)")
	allowLocal := fs.Bool("allow-local-origins", false, "let recipes fetch origin URLs on this machine (loopback, link-local); refused by default so a posted recipe cannot read local services")
	maxMemory := fs.String("max-recipe-memory", "256mb", "most the loaded routes' bodies may hold together, as `size`; a load beyond it is refused")
	fs.Var(&adminHosts, "admin-host", "without -admin-token, also accept /_admin requests addressed to this host `name` (IP addresses and localhost always are; repeatable)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return badinput.Field("", "unexpected argument %q (the recipe goes in -recipe)", fs.Arg(0))
	}
	if *token == "" {
		*token = os.Getenv("LOADLAB_ORIGIN_TOKEN") // read here so -help never prints it
	}
	opts, err := origin.NewOptions(origin.Options{
		Seed:              *seed,
		NoOverrides:       *noOverrides,
		AdminToken:        *token,
		Offline:           *offline,
		AllowLocalOrigins: *allowLocal,
		AdminHosts:        adminHosts,
	}, origin.Text{MaxRecipeSize: *maxRecipe, MaxRecipeMemory: *maxMemory, OfflineSize: *offlineSize, OriginFiles: originFiles})
	if err != nil {
		return err
	}
	if *idle <= 0 { // 0 is serve.Config's default, not a duration the flag takes
		return badinput.Field("-idle-timeout", "want a positive duration, got %v", *idle)
	}
	if *server != "std" && *server != "lean" {
		return badinput.Field("-server", "want std or lean, got %q", *server)
	}
	cfg := serve.Config{
		Listen:          *listen,
		H2C:             *h2c,
		TLS:             *useTLS,
		CertOut:         *certOut,
		NoKeepAlive:     *noKeepAlive,
		MaxConnRequests: *maxConnReq,
		IdleTimeout:     *idle,
		Std:             *server == "std",
		StdConnContext:  origin.ConnContext, // TCP_CORK around sendfile
	}
	if err := cfg.Validate(); err != nil {
		return err
	}
	logf, startLog := heldLog(stderr)
	if *quiet {
		logf = func(string, ...any) {}
	}
	opts.Logf = logf
	sim := origin.New(opts)
	defer sim.Close()
	if *recipeFile != "" {
		data, err := os.ReadFile(*recipeFile)
		if err != nil {
			return &badinput.Error{File: *recipeFile, Msg: "cannot read the recipe", Err: err}
		}
		if err := sim.LoadRecipe(data, *recipeFile); err != nil {
			return err
		}
	}
	if host, _, _ := net.SplitHostPort(*listen); *token == "" && !isLoopback(host) {
		logf("origin: warning: listening on %s without -admin-token: anyone who can reach it can change the recipe", *listen)
	}
	return serve.Run(ctx, cfg, sim, func(url string) {
		logf("origin: seed %d", sim.Seed())
		startLog()
		sim.SetBaseURL(url)
		fmt.Fprintf(stdout, "origin listening on %s\n", url)
		if f, ok := stdout.(interface{ Sync() error }); ok {
			_ = f.Sync()
		}
	}, func() { _ = sim.Close() })
}

func isLoopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// heldLog returns a logger whose lines wait, held, until startLog: a
// start that fails (a port in use) is one line, the error, not the
// recipe's log first.
func heldLog(stderr io.Writer) (logf func(format string, a ...any), startLog func()) {
	var mu sync.Mutex
	var held []string
	listening := false
	logf = func(format string, a ...any) {
		mu.Lock()
		defer mu.Unlock()
		if !listening {
			held = append(held, fmt.Sprintf(format, a...))
			return
		}
		fmt.Fprintf(stderr, format+"\n", a...)
	}
	startLog = func() {
		mu.Lock()
		defer mu.Unlock()
		for _, l := range held {
			fmt.Fprintln(stderr, l)
		}
		held, listening = nil, true
	}
	return logf, startLog
}
