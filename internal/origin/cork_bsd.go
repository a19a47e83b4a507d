//go:build (freebsd || openbsd || dragonfly) && !loadlab_portable

package origin

import "golang.org/x/sys/unix"

// setCork sets (v=1) or clears (v=0) TCP_NOPUSH on socket fd, these
// systems' TCP_CORK: clearing it sends what it held back at once (their
// kernels call tcp_output then).
func setCork(fd uintptr, v int) error {
	return unix.SetsockoptInt(int(fd), unix.IPPROTO_TCP, unix.TCP_NOPUSH, v)
}
