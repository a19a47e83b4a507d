package live

import (
	"net/http"

	"github.com/loadlab/loadlab/internal/webguard"
)

// authorized checks the token, when there is one, on the page and the
// event stream alike. Without a token (a view bound to loopback) the Host
// must name this machine as a tool does (an IP address, localhost): a page
// whose own name resolves here (DNS rebinding) is same-origin with itself
// and could otherwise read the view.
func (s *Server) authorized(w http.ResponseWriter, r *http.Request) bool {
	if s.token == "" {
		if host := webguard.ForeignHost(r, nil); host != "" {
			http.Error(w, "loadlab live view: host "+host+" refused; open the view at the address loadlab printed", http.StatusForbidden)
			return false
		}
		return true
	}
	if webguard.SameToken(r.URL.Query().Get("token"), s.token) {
		return true
	}
	http.Error(w, "loadlab live view: a token is required (open the URL loadlab printed, with ?token=...)", http.StatusUnauthorized)
	return false
}
