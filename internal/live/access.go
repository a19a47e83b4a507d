package live

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"net"
	"net/http"
)

// needsToken reports whether a view bound to host is reachable from
// beyond this machine (anything but loopback, including "" and 0.0.0.0).
func needsToken(host string) bool {
	ip := net.ParseIP(host)
	return !(host == "localhost" || ip != nil && ip.IsLoopback())
}

// newToken is a random token for a view bound beyond loopback.
func newToken() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// authorized checks the token, when there is one, on the page and the
// event stream alike.
func (s *Server) authorized(w http.ResponseWriter, r *http.Request) bool {
	if s.token == "" || subtle.ConstantTimeCompare([]byte(r.URL.Query().Get("token")), []byte(s.token)) == 1 {
		return true
	}
	http.Error(w, "loadlab live view: a token is required (open the URL loadlab printed, with ?token=...)", http.StatusUnauthorized)
	return false
}
