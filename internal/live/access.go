package live

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"net"
	"net/http"

	"github.com/loadlab/loadlab/internal/hostcheck"
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
// event stream alike. Without a token (a view bound to loopback) the Host
// must name this machine as a tool does (an IP address, localhost): a page
// whose own name resolves here (DNS rebinding) is same-origin with itself
// and could otherwise read the view.
func (s *Server) authorized(w http.ResponseWriter, r *http.Request) bool {
	if s.token == "" {
		if hostcheck.Local(r.Host, nil) {
			return true
		}
		http.Error(w, "loadlab live view: host "+hostcheck.Name(r.Host)+" refused; open the view at the address loadlab printed", http.StatusForbidden)
		return false
	}
	if subtle.ConstantTimeCompare([]byte(r.URL.Query().Get("token")), []byte(s.token)) == 1 {
		return true
	}
	http.Error(w, "loadlab live view: a token is required (open the URL loadlab printed, with ?token=...)", http.StatusUnauthorized)
	return false
}
