package httpsyntax

import "testing"

func TestScanAnswer(t *testing.T) {
	for _, c := range []struct {
		head      string
		ok        bool
		status    int
		length    int64
		keepAlive bool
	}{
		{"HTTP/1.1 200 OK\r\nContent-Length: 5\r\nX-A: b\r\n\r\nhello", true, 200, 5, false},
		{"HTTP/1.1 503 Busy\r\ncontent-length:  0 \t\r\nConnection: Keep-Alive\r\n\r\n", true, 503, 0, true},
		{"HTTP/1.1 200 OK\r\nContent-Length: 5\r\n", false, 0, 0, false},                          // not whole
		{"HTTP/1.1 200 OK\r\nX-A: b\r\n\r\n", false, 0, 0, false},                                 // no length
		{"HTTP/1.1 200 OK\r\nContent-Length: 1\r\nContent-Length: 1\r\n\r\n", false, 0, 0, false}, // two
		{"HTTP/1.1 200 OK\r\nContent-Length: 1\r\nConnection: close\r\n\r\n", false, 0, 0, false},
		{"HTTP/1.1 200 OK\r\nContent-Length: 1\r\nPragma: no-cache\r\n\r\n", false, 0, 0, false},
		{"HTTP/1.1 200 OK\r\nContent-Length: 1\r\nX-A: caf\xc3\xa9\r\n\r\n", false, 0, 0, false}, // obs-text
		{"HTTP/1.1 200 OK\r\nContent-Length: 1\r\nX-A: a\r\n b\r\n\r\n", false, 0, 0, false},     // folded
		{"HTTP/1.0 200 OK\r\nContent-Length: 1\r\n\r\n", false, 0, 0, false},
		{"HTTP/1.1 2x0 OK\r\nContent-Length: 1\r\n\r\n", false, 0, 0, false},
	} {
		a, ok := ScanAnswer([]byte(c.head))
		if ok != c.ok || a.Status != c.status || ok && (a.Length != c.length || a.KeepAlive != c.keepAlive) {
			t.Errorf("%q: ok %v status %d length %d keep-alive %v, want %v %d %d %v", c.head, ok, a.Status, a.Length, a.KeepAlive, c.ok, c.status, c.length, c.keepAlive)
		}
		if ok && (string(a.Line) != c.head[:len(a.Line)] || a.Size != len(c.head)-int(c.length)) {
			t.Errorf("%q: line %q size %d", c.head, a.Line, a.Size)
		}
	}
}
