//go:build !linux || loadlab_portable

package sampler

import "errors"

var errNoSockDiag = errors.New("sock_diag unavailable")

// tcpRowsSockDiag is Linux's; elsewhere the caller reads /proc (if any).
func tcpRowsSockDiag(buf []byte) ([]tcpRow, []byte, error) { return nil, buf, errNoSockDiag }
