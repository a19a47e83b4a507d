package origin

import (
	"crypto/tls"
	"net"
	"net/http"
)

// abortConn ends the request without an answer. On HTTP/1 it takes over
// the connection and closes it, with a TCP reset (SO_LINGER 0) when reset
// is true; on HTTP/2, where connections are shared, it resets the stream.
func abortConn(w http.ResponseWriter, reset bool) {
	conn, _, err := http.NewResponseController(w).Hijack()
	if err != nil {
		panic(http.ErrAbortHandler)
	}
	if reset {
		if tc := tcpConn(conn); tc != nil {
			_ = tc.SetLinger(0)
		}
	}
	_ = conn.Close()
}

func tcpConn(c net.Conn) *net.TCPConn {
	for {
		switch x := c.(type) {
		case *net.TCPConn:
			return x
		case *tls.Conn:
			c = x.NetConn()
		case interface{ NetConn() net.Conn }:
			c = x.NetConn()
		default:
			return nil
		}
	}
}
