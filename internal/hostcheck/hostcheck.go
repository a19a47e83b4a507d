// Package hostcheck decides whether a request's Host header names this
// machine the way a tool does (an IP address, localhost, a name under
// .localhost, or a name the user allowed), which a page served from a
// name that merely resolves here (DNS rebinding) cannot fake: the origin's
// admin API and the live view refuse other Hosts unless a token is used.
package hostcheck

import (
	"net"
	"slices"
	"strings"
)

// Local reports whether hostport (a Host header, with or without a port)
// is an IP address, localhost, a name under .localhost, one of allowed
// (compared without case), or empty (HTTP/1.0 clients send none).
func Local(hostport string, allowed []string) bool {
	host := hostport
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	host = strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
	lower := strings.ToLower(host)
	switch {
	case host == "":
		return true
	case net.ParseIP(host) != nil, lower == "localhost", strings.HasSuffix(lower, ".localhost"):
		return true
	}
	return slices.ContainsFunc(allowed, func(h string) bool { return strings.EqualFold(h, host) })
}

// Name is the host part of hostport, for messages.
func Name(hostport string) string {
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		return h
	}
	return hostport
}
