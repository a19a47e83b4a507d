package site

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"

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
	// Links maps a label key to an http(s) URL template (ParseLink): the
	// runs' values of that label link to where they come from.
	Links map[string]string
}

// Handler serves the results site. It only reads the store.
type Handler struct {
	store  archive.Store
	opts   Options
	mux    *http.ServeMux
	trends trendCache
}

// New returns the site for store.
func New(store archive.Store, o Options) *Handler {
	h := &Handler{store: store, opts: o, mux: http.NewServeMux()}
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
	h.mux.ServeHTTP(w, r)
}

// failure answers a request that went wrong: 404 for a run that does not
// exist, 400 for a bad query, 500 otherwise; one line of text.
func failure(w http.ResponseWriter, err error) {
	code := http.StatusInternalServerError
	switch {
	case errors.Is(err, archive.ErrNotFound):
		code = http.StatusNotFound
	case badinput.Is(err):
		code = http.StatusBadRequest
	case errors.Is(err, context.Canceled):
		return
	}
	http.Error(w, strings.ReplaceAll(err.Error(), "\n", " "), code)
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
