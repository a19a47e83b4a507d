//go:build !linux || loadlab_portable

package hangup

import (
	"errors"
	"syscall"
)

// Watch is only implemented on Linux (an epoll set): New fails elsewhere.
type Watch struct{}

// New fails: no epoll here.
func New() (*Watch, error) { return nil, errors.New("hangup: needs Linux's epoll") }

// Add fails.
func (w *Watch) Add(syscall.RawConn, func()) (uint64, error) {
	return 0, errors.New("hangup: needs Linux's epoll")
}

// Remove does nothing.
func (w *Watch) Remove(uint64, syscall.RawConn) {}

// Close does nothing.
func (w *Watch) Close() {}

// PeerGone is false: nothing watched.
func PeerGone(syscall.RawConn) bool { return false }
