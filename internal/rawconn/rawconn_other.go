//go:build !linux || loadlab_portable

package rawconn

import (
	"errors"
	"net"
	"os"
)

// Conn is only implemented on Linux: New returns nil elsewhere and callers
// use net.Conn's own Read and Write.
type Conn struct{}

var errUnsupported = errors.New("rawconn: not supported on this system")

// New returns nil: raw system calls are only used on Linux.
func New(nc net.Conn) *Conn { return nil }

// Send is never called on this system (New returns nil).
func (r *Conn) Send(b []byte) {}

// Read is never called on this system (New returns nil).
func (r *Conn) Read(p []byte) (int, error) { return 0, errUnsupported }

// Write is never called on this system (New returns nil).
func (r *Conn) Write(p []byte) (int, error) { return 0, errUnsupported }

// EnableStamps fails: receive timestamps are only read on Linux.
func (r *Conn) EnableStamps() error { return errUnsupported }

// ReadStamped is never called on this system (New returns nil).
func (r *Conn) ReadStamped(p []byte) (int, int64, error) { return 0, 0, errUnsupported }

// SendFile is never called on this system (New returns nil).
func (r *Conn) SendFile(head []byte, f *os.File, n int64) (int64, bool, error) {
	return 0, false, nil
}

// SendFileAt is never called on this system (New returns nil).
func (r *Conn) SendFileAt(head []byte, f *os.File, off, n int64) (int64, bool, error) {
	return 0, false, nil
}
