//go:build !linux

package serve

import (
	"io"
	"net"
	"os"
)

// rawIO is only implemented on Linux; elsewhere lean connections use
// net.Conn's Read and Write.
type rawIO struct{ io.ReadWriter }

func newRawIO(nc net.Conn) *rawIO { return nil }

func (r *rawIO) sendFileWithHead(head []byte, f *os.File, n int64) (int64, bool, error) {
	return 0, false, nil
}
