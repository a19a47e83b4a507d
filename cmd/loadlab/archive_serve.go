package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"strconv"
	"time"

	"github.com/loadlab/loadlab/internal/archive"
	"github.com/loadlab/loadlab/internal/archive/site"
	"github.com/loadlab/loadlab/internal/archive/sqlstore"
	"github.com/loadlab/loadlab/internal/badinput"
	"github.com/loadlab/loadlab/internal/webguard"
)

func init() {
	archiveCommands.register(command{name: "serve", summary: "the results site: every run, a page per run, compare, trends (read-only)", order: 40, run: runArchiveServe})
}

const archiveServeExamples = `  # The results site of an archive, on this machine only
  loadlab archive serve -db runs.db
  loadlab archive serve -db runs.db -listen 127.0.0.1:0     # a free port, printed

  # Commit labels linked to the repository; dashboards read the JSON API
  # (/api/runs, /api/runs/ID, /api/trend?by=commit&metric=p99: the shapes
  # of list, show and trend -type json)
  loadlab archive serve -db runs.db -link commit=https://git.example/repo/commit/{}

  # A team's site over its Postgres, reachable from other machines: a
  # token is required (one is made and printed when -token is not given)
  loadlab archive serve -db postgres://lab@db.internal/loadlab -listen 0.0.0.0:8095 -token "$SITE_TOKEN"`

// runArchiveServe serves the results site of an archive until ctx ends.
func runArchiveServe(ctx context.Context, args []string, _ io.Reader, _, stderr io.Writer) error {
	fs := newFlagSet("archive serve", "-db DB [-listen host:port] [-token T]", archiveServeExamples, stderr)
	db := fs.String("db", "", "the archive: a SQLite file `path` or a postgres:// URL (it must exist)")
	listen := fs.String("listen", "127.0.0.1:8095", "`address` to serve on; port 0 picks a free port; beyond loopback a token is required")
	token := fs.String("token", "", "`token` required on every request (?token=, then a cookie, or Authorization: Bearer); made up when listening beyond loopback without one")
	var hosts listFlag
	fs.Var(&hosts, "host", "without a token, also accept requests addressed to this host `name` (IP addresses and localhost always are; repeatable)")
	var linkArgs listFlag
	fs.Var(&linkArgs, "link", "link a label's values to where they come from: `key=URL` with {} for the value, http or https only (repeatable), e.g. commit=https://git.example/repo/commit/{}")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return badinput.Errorf("unexpected argument %q (see 'loadlab archive serve -help')", fs.Arg(0))
	}
	if *db == "" {
		return badinput.Field("-db", "required: the archive to serve (a SQLite file or a postgres:// URL)")
	}
	links := map[string]string{}
	for _, l := range linkArgs {
		k, tmpl, err := site.ParseLink(l)
		if err != nil {
			return badinput.Field("-link", "%v", err)
		}
		links[k] = tmpl
	}
	host, _, err := net.SplitHostPort(*listen)
	if err != nil {
		return badinput.Field("-listen", "want host:port, e.g. 127.0.0.1:8095: %v", err)
	}
	if *token == "" && webguard.NeedsToken(host) {
		*token = webguard.NewToken()
	}
	store, err := archive.OpenExisting(ctx, *db)
	if err != nil {
		return err
	}
	defer store.Close()
	ln, err := net.Listen("tcp", *listen)
	if err != nil {
		return badinput.Field("-listen", "%v", err)
	}
	srv := &http.Server{Handler: site.New(store, site.Options{Token: *token, Hosts: hosts, Links: links,
		MaxInFlight: sqlstore.MaxConns, ErrorLog: log.New(stderr, "", log.LstdFlags)}),
		ReadHeaderTimeout: 10 * time.Second, IdleTimeout: 2 * time.Minute}
	url := "http://" + siteAddr(ln.Addr().(*net.TCPAddr)) + "/"
	if *token != "" {
		url += "?token=" + *token
	}
	fmt.Fprintf(stderr, "archive site: %s\n", url)
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil && !errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	return nil
}

// siteAddr is the host:port to print for the site: the machine's name
// when it listens on every address (0.0.0.0 or ::), so the URL can be
// shared.
func siteAddr(a *net.TCPAddr) string {
	if a.IP.IsUnspecified() {
		if h, err := os.Hostname(); err == nil && h != "" {
			return net.JoinHostPort(h, strconv.Itoa(a.Port))
		}
	}
	return a.String()
}
