package proxy

import (
	"net"
	"net/http"
	"net/textproto"
	"strings"

	"github.com/loadlab/loadlab/internal/http1"
)

// The rules by which a request is forwarded, shared by outRequest (the
// object path, which edits a header map) and appendOutHead (the byte path,
// which writes the upstream head from the client's fields as they are):
// hop-by-hop fields, and those the Connection field names, are dropped;
// X-Forwarded-For gets the client's address.

// hopByHop are the fields a proxy does not pass on (RFC 9110 7.6.1).
var hopByHop = []string{
	"Connection", "Proxy-Connection", "Keep-Alive", "Proxy-Authenticate",
	"Proxy-Authorization", "Te", "Trailer", "Transfer-Encoding", "Upgrade",
}

// hopField reports whether the field k (a header map's key) is not passed
// on in a message whose Connection values are conn: a hop-by-hop field,
// or one conn names.
func hopField(conn []string, k string) bool {
	for _, h := range hopByHop {
		if k == h {
			return true
		}
	}
	for _, v := range conn {
		for v != "" {
			var f string
			f, v, _ = strings.Cut(v, ",")
			if f = strings.TrimSpace(f); len(f) == len(k) && strings.EqualFold(f, k) &&
				textproto.CanonicalMIMEHeaderKey(f) == k {
				return true
			}
		}
	}
	return false
}

// removeHopByHop deletes from h the fields hopField names.
func removeHopByHop(h http.Header) {
	conn := h["Connection"]
	for k := range h {
		if hopField(conn, k) {
			delete(h, k)
		}
	}
}

// forwardedFor is the X-Forwarded-For value sent upstream: the client's
// address (from remote, a RemoteAddr) after the values prior already
// holds. ok is false when remote holds no address (the field is then left
// as it is).
func forwardedFor(prior []string, remote string) (string, bool) {
	ip, _, err := net.SplitHostPort(remote)
	if err != nil {
		return "", false
	}
	if len(prior) > 0 {
		ip = strings.Join(prior, ", ") + ", " + ip
	}
	return ip, true
}

// bytePathRequest reports whether r may be forwarded by the byte path: a
// GET or HEAD without a body, no Expect or Upgrade, a path-form target.
func bytePathRequest(r *http.Request) bool {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		return false
	}
	_, expect := r.Header["Expect"]
	_, upgrade := r.Header["Upgrade"]
	return r.ContentLength == 0 && len(r.TransferEncoding) == 0 && !expect && !upgrade && r.URL.Opaque == ""
}

// appendOutHead appends to b the upstream head of r forwarded along rte:
// what http1.AppendRequest sends for outRequest(r, rte), written from r's
// own fields (no request and no header map made). ok is false when it
// cannot (AppendRequest would refuse, or r has no client address): the
// object path then forwards r.
func appendOutHead(b []byte, r *http.Request, rte *route) ([]byte, bool) {
	conn := r.Header["Connection"]
	var prior []string
	if !hopField(conn, "X-Forwarded-For") {
		prior = r.Header["X-Forwarded-For"]
	}
	xff, ok := forwardedFor(prior, r.RemoteAddr)
	if !ok || xff == "" {
		return b, false
	}
	u := *r.URL
	if rte.upstream.Path != "" {
		u.Path = rte.upstream.Path + r.URL.Path
		u.RawPath = ""
	}
	drop := func(k string) bool { return hopField(conn, k) }
	return http1.AppendForwarded(b, r.Method, u.RequestURI(), rte.upstream.Host, r.Header, drop, xff)
}
