package webguard

import (
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
)

// CrossSite says why r was sent by a web page of another site, or ""
// when it was not: Sec-Fetch-Site cross-site or same-site, or an Origin
// header whose host differs from the request's Host. Tools such as curl
// send neither header.
func CrossSite(r *http.Request) string {
	if site := r.Header.Get("Sec-Fetch-Site"); site == "cross-site" || site == "same-site" {
		return "sent by a web page of another site"
	}
	if o := r.Header.Get("Origin"); o != "" {
		u, err := url.Parse(o)
		if err != nil || o == "null" || !strings.EqualFold(u.Host, r.Host) {
			return "sent by a web page of another origin (" + o + ")"
		}
	}
	return ""
}

// ForeignHost returns the host of r's Host header when it does not name
// this machine: not an IP address, localhost (or a name under .localhost)
// or one of allowed. It returns "" for a Host that is fine, or absent.
func ForeignHost(r *http.Request, allowed []string) string {
	host := r.Host
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	host = strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
	lower := strings.ToLower(host)
	switch {
	case host == "":
		return ""
	case net.ParseIP(host) != nil, lower == "localhost", strings.HasSuffix(lower, ".localhost"):
		return ""
	case slices.ContainsFunc(allowed, func(h string) bool { return strings.EqualFold(h, host) }):
		return ""
	}
	return host
}
