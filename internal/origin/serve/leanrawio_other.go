//go:build !linux

package serve

import (
	"io"
	"net"
)

// rawIO is only implemented on Linux; elsewhere lean connections use
// net.Conn's Read and Write.
type rawIO struct{ io.ReadWriter }

func newRawIO(nc net.Conn) *rawIO { return nil }
