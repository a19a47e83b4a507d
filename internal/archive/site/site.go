package site

import (
	"context"
	"errors"
	"fmt"
	"log"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/loadlab/loadlab/internal/archive"
	"github.com/loadlab/loadlab/internal/badinput"
)

// Options configure the site.
type Options struct {
	// Token, when set, is required on every request: as ?token=T (which
	// sets a same-site cookie and redirects to the URL without it), the
	// cookie, or an "Authorization: Bearer T" header. Without a token the
	// site serves only requests whose Host names this machine.
	Token string
	// Hosts are extra Host names accepted without a token (IP addresses
	// and localhost always are).
	Hosts []string
	// MaxInFlight bounds the requests served at once (default
	// DefaultMaxInFlight; loadlab archive serve gives sqlstore.MaxConns,
	// the store's connections); Wait is how long a
	// request waits for its turn (default 5 s) before it is answered 503
	// with Retry-After.
	MaxInFlight int
	Wait        time.Duration
	// ErrorLog receives the details of a failure the visitor is only told
	// the kind of (the database unavailable or damaged); nil discards them.
	ErrorLog *log.Logger
	// Links maps a label key to an http(s) URL template (ParseLink): the
	// runs' values of that label link to where they come from.
	Links map[string]string
}

// Defaults of Options.
const (
	DefaultMaxInFlight = 8
	DefaultWait        = 5 * time.Second
	// retryAfter is the Retry-After of a 503, in seconds.
	retryAfter = "5"
)

// Handler serves the results site. It only reads the store.
type Handler struct {
	store  archive.Reader
	opts   Options
	mux    *http.ServeMux
	trends trendCache
	slots  chan struct{} // one per request served at once
}

// New returns the site for store.
func New(store archive.Reader, o Options) *Handler {
	if o.MaxInFlight <= 0 {
		o.MaxInFlight = DefaultMaxInFlight
	}
	if o.Wait <= 0 {
		o.Wait = DefaultWait
	}
	h := &Handler{store: store, opts: o, mux: http.NewServeMux(), slots: make(chan struct{}, o.MaxInFlight)}
	h.mux.HandleFunc("GET /{$}", h.index)
	h.mux.HandleFunc("GET /runs/{id}", h.run)
	h.mux.HandleFunc("GET /runs/{id}/archive.tar", h.tarball)
	h.mux.HandleFunc("GET /runs/{id}/results.bin", h.resultsBin)
	h.mux.HandleFunc("GET /compare", h.compare)
	h.mux.HandleFunc("GET /trend", h.trend)
	h.mux.HandleFunc("GET /api/runs", h.apiRuns)
	h.mux.HandleFunc("GET /api/runs/{id}", h.apiRun)
	h.mux.HandleFunc("GET /api/trend", h.apiTrend)
	h.mux.HandleFunc("GET /favicon.ico", func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusNoContent) })
	return h
}

// ServeHTTP checks the request (method, token or Host, cross-site) and
// serves it.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	hd := w.Header()
	hd.Set("X-Content-Type-Options", "nosniff")
	hd.Set("X-Frame-Options", "DENY")
	hd.Set("Referrer-Policy", "no-referrer")
	// Inline styles and scripts only (the pages are self-contained);
	// nothing fetched, no form sent elsewhere, never framed.
	hd.Set("Content-Security-Policy", "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:; form-action 'self'; frame-ancestors 'none'; base-uri 'none'")
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		hd.Set("Allow", "GET, HEAD")
		http.Error(w, "the results site is read-only: only GET and HEAD", http.StatusMethodNotAllowed)
		return
	}
	if !h.allowed(w, r) {
		return
	}
	if !h.acquire(r.Context()) {
		if r.Context().Err() == nil {
			unavailable(w, "the results site is busy")
		}
		return
	}
	defer func() { <-h.slots }()
	h.mux.ServeHTTP(&failureWriter{ResponseWriter: w, log: h.opts.ErrorLog}, r)
}

// acquire waits up to Options.Wait for a turn to serve a request.
func (h *Handler) acquire(ctx context.Context) bool {
	select {
	case h.slots <- struct{}{}:
		return true
	default:
	}
	t := time.NewTimer(h.opts.Wait)
	defer t.Stop()
	select {
	case h.slots <- struct{}{}:
		return true
	case <-t.C:
		return false
	case <-ctx.Done():
		return false
	}
}

// unavailable answers 503 with Retry-After: the site or its database
// cannot serve now, may in a moment.
func unavailable(w http.ResponseWriter, what string) {
	w.Header().Set("Retry-After", retryAfter)
	http.Error(w, what+"; try again in a few seconds", http.StatusServiceUnavailable)
}

// failureWriter carries the error log to failure (handlers answer
// failures through it).
type failureWriter struct {
	http.ResponseWriter
	log *log.Logger
}

// Unwrap gives http.ResponseController the writer underneath.
func (fw *failureWriter) Unwrap() http.ResponseWriter { return fw.ResponseWriter }

// Flush lets a streamed answer (a tar) flush through the wrapper.
func (fw *failureWriter) Flush() {
	if f, ok := fw.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// failure answers a request that went wrong, on one line of text: 404 for
// a run that does not exist; 503 with Retry-After when the database cannot
// serve now (unreachable, out of connections); 500 when it is damaged or
// fails otherwise, told without its details (no SQL, no file name: those
// go to Options.ErrorLog); 400 only for a mistake in the request itself.
func failure(w http.ResponseWriter, err error) {
	var lg *log.Logger
	if fw, ok := w.(*failureWriter); ok {
		lg = fw.log
	}
	logged := func() {
		if lg != nil {
			lg.Printf("loadlab archive serve: %s", strings.ReplaceAll(err.Error(), "\n", " "))
		}
	}
	switch {
	case errors.Is(err, context.Canceled):
		return
	case errors.Is(err, archive.ErrNotFound):
		http.Error(w, strings.ReplaceAll(err.Error(), "\n", " "), http.StatusNotFound)
	case errors.Is(err, archive.ErrUnavailable), errors.Is(err, context.DeadlineExceeded):
		logged()
		unavailable(w, "the archive's database is unavailable")
	case errors.Is(err, archive.ErrDamaged):
		logged()
		http.Error(w, "the archive's database is damaged or not a loadlab archive (the server's log says more)", http.StatusInternalServerError)
	case errors.Is(err, archive.ErrDatabase) || !badinput.Is(err):
		logged()
		http.Error(w, "the archive's database failed to answer (the server's log says more)", http.StatusInternalServerError)
	default:
		http.Error(w, strings.ReplaceAll(err.Error(), "\n", " "), http.StatusBadRequest)
	}
}

// runURL is a run's permanent address.
func runURL(id string) string { return "/runs/" + url.PathEscape(id) }

// stepAnchor is the id of a step's section on its run page.
func stepAnchor(st archive.Step) string {
	return fmt.Sprintf("step-%d-%s", st.Index+1, anchorSafe(st.Scenario))
}

func anchorSafe(s string) string {
	var b strings.Builder
	for _, c := range s {
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c == '-', c == '_':
			b.WriteRune(c)
		default:
			b.WriteByte('_')
		}
	}
	return b.String()
}
