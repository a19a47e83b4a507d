package proxy

import (
	"net"
	"net/http"
	"net/textproto"
	"net/url"
	"strings"

	"github.com/loadlab/loadlab/internal/httpsyntax"
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

// appendOutHead appends to b the upstream head of in (a raw head)
// forwarded along rte: what httpsyntax.AppendRequest sends for
// outRequest(in.request(), rte), written from the client's fields as read
// (no request and no header map made). ok is false when it cannot
// (AppendRequest would refuse, or in has no client address): the object
// path then forwards in.
func appendOutHead(b []byte, in inbound, rte *route) ([]byte, bool) {
	// The Connection and X-Forwarded-For values: a request has one or
	// two at most, held on the stack.
	var connBuf, priorBuf [2]string
	conn, prior := connBuf[:0], priorBuf[:0]
	for k, v := range in.raw.Fields() {
		switch k {
		case "Connection":
			conn = append(conn, v)
		case "X-Forwarded-For":
			prior = append(prior, v)
		}
	}
	if hopField(conn, "X-Forwarded-For") {
		prior = nil
	}
	xff, ok := forwardedFor(prior, in.raw.RemoteAddr())
	if !ok || xff == "" {
		return b, false
	}
	uri := in.raw.Target() // a plain target: its URL's RequestURI
	if rte.upstream.Path != "" {
		_, query, hasQuery := strings.Cut(uri, "?")
		u := url.URL{Path: rte.upstream.Path + in.path, RawQuery: query, ForceQuery: hasQuery && query == ""}
		uri = u.RequestURI()
	}
	drop := func(k string) bool { return hopField(conn, k) }
	return httpsyntax.AppendForwardedFields(b, in.raw.Method(), in.raw.HeadFields(), uri, rte.upstream.Host, drop, xff)
}
