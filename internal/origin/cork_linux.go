//go:build !loadlab_portable

package origin

import "syscall"

// setCork sets (v=1) or clears (v=0) TCP_CORK on socket fd: clearing it
// sends what it held back at once.
func setCork(fd uintptr, v int) error {
	return syscall.SetsockoptInt(int(fd), syscall.IPPROTO_TCP, syscall.TCP_CORK, v)
}
