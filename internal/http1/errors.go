package http1

import (
	"errors"
	"syscall"
)

// portExhaustion explains EADDRNOTAVAIL / EADDRINUSE on connect: the OS has
// no free local port for a new connection. loadlab never binds before
// connecting, so this only happens when connections are opened and closed
// faster than TIME_WAIT frees their ports.
const portExhaustion = " (the OS ran out of local ports for new connections: keep connections alive" +
	" (-keepalive, -connections), lower the rate, or widen net.ipv4.ip_local_port_range)"

// explain returns err's text, with a plain explanation appended for local
// port exhaustion.
func explain(err error) string {
	s := err.Error()
	if errors.Is(err, syscall.EADDRNOTAVAIL) || errors.Is(err, syscall.EADDRINUSE) {
		s += portExhaustion
	}
	return s
}
