package webguard

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"net"
)

// NeedsToken reports whether a server bound to host is reachable from
// beyond this machine: anything but a loopback address or localhost,
// including "" and 0.0.0.0.
func NeedsToken(host string) bool {
	ip := net.ParseIP(host)
	return !(host == "localhost" || ip != nil && ip.IsLoopback())
}

// NewToken is a random token (32 hex digits) for a server bound beyond
// loopback.
func NewToken() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// SameToken compares a token given with the expected one in constant time.
func SameToken(got, want string) bool {
	return subtle.ConstantTimeCompare([]byte(got), []byte(want)) == 1
}
