//go:build !linux

package serve

import (
	"net"
	"time"
)

// stamper is Linux only (SO_TIMESTAMPNS).
type stamper struct{}

func newStamper(net.Conn) *stamper { return nil }

func (*stamper) read(p []byte) (int, time.Time, error) { panic("serve: no stamper") }
