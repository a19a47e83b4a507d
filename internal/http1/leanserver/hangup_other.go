//go:build !linux || loadlab_portable

package leanserver

import "errors"

// hangupWatch is only implemented on Linux (an epoll set): elsewhere
// newHangupWatch fails and requests are watched by a read of their own
// (reqCtx.watch).
type hangupWatch struct{}

func newHangupWatch() (*hangupWatch, error) {
	return nil, errors.New("the hangup watch needs Linux's epoll")
}

func (w *hangupWatch) add(*serverConn) error { return errors.New("no hangup watch") }

func (w *hangupWatch) remove(*serverConn, bool) {}

func (w *hangupWatch) close() {}

func (c *serverConn) peerGone() bool { return false }
