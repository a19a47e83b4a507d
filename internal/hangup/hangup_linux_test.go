//go:build linux && !loadlab_portable

package hangup

import (
	"io"
	"net"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/loadlab/loadlab/internal/testwait"
)

// pair is a loopback TCP connection: the server's end (watched) and the
// peer's.
func pair(t *testing.T) (*net.TCPConn, net.Conn) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	peer, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	s, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close(); peer.Close() })
	return s.(*net.TCPConn), peer
}

func rawConn(t *testing.T, c *net.TCPConn) syscall.RawConn {
	rc, err := c.SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	return rc
}

// Bytes from the peer raise nothing; its close runs the callback once;
// PeerGone is false while bytes it sent are unread and true once they are
// read; a removed socket's close runs nothing.
func TestWatch(t *testing.T) {
	w, err := New()
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	s, peer := pair(t)
	rc := rawConn(t, s)
	var calls atomic.Int32
	if _, err := w.Add(rc, func() { calls.Add(1) }); err != nil {
		t.Fatal(err)
	}
	if _, err := io.WriteString(peer, "GET / HTTP/1.1\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 64)
	_ = s.SetReadDeadline(time.Now().Add(10 * time.Second))
	if _, err := s.Read(buf); err != nil {
		t.Fatal(err)
	}
	if PeerGone(rc) {
		t.Fatal("PeerGone with the peer still there")
	}
	_, _ = io.WriteString(peer, "more")
	peer.Close()
	testwait.Eventually(t, 10*time.Second, "the callback after the peer closed", func() bool { return calls.Load() >= 1 })
	if PeerGone(rc) {
		t.Fatal("PeerGone with the peer's last bytes unread")
	}
	if n, err := s.Read(buf); err != nil || string(buf[:n]) != "more" {
		t.Fatalf("read %q, %v: want the peer's last bytes", buf[:n], err)
	}
	if !PeerGone(rc) {
		t.Fatal("not PeerGone after the peer closed and its bytes were read")
	}
	if n := calls.Load(); n != 1 {
		t.Fatalf("the callback ran %d times, want once", n)
	}

	s2, peer2 := pair(t)
	rc2 := rawConn(t, s2)
	var removed atomic.Int32
	key, err := w.Add(rc2, func() { removed.Add(1) })
	if err != nil {
		t.Fatal(err)
	}
	w.Remove(key, rc2)
	// A third socket, added after, shows the watch has looked at the
	// second's close: events come in the order the kernel queued them.
	s3, peer3 := pair(t)
	var third atomic.Int32
	if _, err := w.Add(rawConn(t, s3), func() { third.Add(1) }); err != nil {
		t.Fatal(err)
	}
	peer2.Close()
	peer3.Close()
	testwait.Eventually(t, 10*time.Second, "the third socket's callback", func() bool { return third.Load() == 1 })
	if removed.Load() != 0 {
		t.Fatal("a removed socket's callback ran")
	}
}

// A socket whose peer closed before it was added is reported at once.
func TestWatchClosedBeforeAdd(t *testing.T) {
	w, err := New()
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	s, peer := pair(t)
	peer.Close()
	rc := rawConn(t, s)
	testwait.Eventually(t, 10*time.Second, "the peer's close to reach the socket", func() bool { return PeerGone(rc) })
	var calls atomic.Int32
	if _, err := w.Add(rc, func() { calls.Add(1) }); err != nil {
		t.Fatal(err)
	}
	testwait.Eventually(t, 10*time.Second, "the callback of a socket closed before it was added", func() bool { return calls.Load() == 1 })
}
