package site

import (
	"net/http"
	"strings"

	"github.com/loadlab/loadlab/internal/webguard"
)

// tokenCookie carries the token once given in the URL. It is SameSite
// Strict: a page of another site never sends it.
const tokenCookie = "loadlab_archive_token"

// allowed checks the token (when the site has one) or else the Host
// header, and refuses what a page of another site sends other than
// following a link: the site only reads, but it should not be embedded
// or scripted from elsewhere. It answers the request when refusing it.
func (h *Handler) allowed(w http.ResponseWriter, r *http.Request) bool {
	if webguard.CrossSite(r) != "" && r.Header.Get("Sec-Fetch-Mode") != "navigate" {
		http.Error(w, "loadlab archive: requests from pages of another site are refused (links to it work)", http.StatusForbidden)
		return false
	}
	if h.opts.Token == "" {
		if host := webguard.ForeignHost(r, h.opts.Hosts); host != "" {
			http.Error(w, "loadlab archive: host "+host+" is refused without a token (a page whose name resolves to this machine could read the site); use the IP address, or serve with -token", http.StatusForbidden)
			return false
		}
		return true
	}
	if q := r.URL.Query(); q.Has("token") {
		if !webguard.SameToken(q.Get("token"), h.opts.Token) {
			http.Error(w, "loadlab archive: wrong token", http.StatusUnauthorized)
			return false
		}
		http.SetCookie(w, &http.Cookie{Name: tokenCookie, Value: h.opts.Token, Path: "/", HttpOnly: true, SameSite: http.SameSiteStrictMode})
		q.Del("token")
		http.Redirect(w, r, localURL(r.URL.EscapedPath(), q.Encode()), http.StatusSeeOther)
		return false
	}
	if c, err := r.Cookie(tokenCookie); err == nil && webguard.SameToken(c.Value, h.opts.Token) {
		return true
	}
	if a := r.Header.Get("Authorization"); strings.HasPrefix(a, "Bearer ") && webguard.SameToken(strings.TrimPrefix(a, "Bearer "), h.opts.Token) {
		return true
	}
	w.Header().Set("WWW-Authenticate", `Bearer realm="loadlab archive"`)
	http.Error(w, "loadlab archive: a token is required (open the URL loadlab archive serve printed, with ?token=...)", http.StatusUnauthorized)
	return false
}

// localURL is a redirect target that stays on this site whatever the
// request's path: one leading slash, never // or /\ (which a browser
// takes for another host), no scheme or host.
func localURL(escapedPath, rawQuery string) string {
	p := "/" + strings.TrimLeft(escapedPath, "/\\")
	if rawQuery != "" {
		p += "?" + rawQuery
	}
	return p
}
