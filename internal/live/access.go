package live

import (
	"net/http"

	"github.com/loadlab/loadlab/internal/webguard"
)

// authorized checks the token, when there is one, on the page and the
// event stream alike.
func (s *Server) authorized(w http.ResponseWriter, r *http.Request) bool {
	if s.token == "" || webguard.SameToken(r.URL.Query().Get("token"), s.token) {
		return true
	}
	http.Error(w, "loadlab live view: a token is required (open the URL loadlab printed, with ?token=...)", http.StatusUnauthorized)
	return false
}
