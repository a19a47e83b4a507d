//go:build !linux

package serve

import "net"

// stamper is Linux only (SO_TIMESTAMPNS).
type stamper struct{}

func newStamper(net.Conn) *stamper { return nil }

func (*stamper) read(p []byte) (int, int64, error) { panic("serve: no stamper") }
