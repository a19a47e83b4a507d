//go:build linux && !loadlab_portable

package rawconn

import (
	"net"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"github.com/loadlab/loadlab/internal/testwait"
)

// ReadStamped gives the time bytes reached the socket, not the time they
// were read.
func TestReadStampedReceiveTime(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	client, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	server, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	defer server.Close()
	s := New(server)
	if s == nil || s.EnableStamps() != nil {
		t.Fatal("no receive timestamps on a TCP connection")
	}
	// The kernel turns timestamping on a moment after the first socket asks
	// (reads come without one until then).
	testwait.Eventually(t, 10*time.Second, "a read with a receive time", func() bool {
		if _, err := client.Write([]byte("x")); err != nil {
			t.Fatal(err)
		}
		_, rx, err := s.ReadStamped(make([]byte, 8))
		if err != nil {
			t.Fatal(err)
		}
		return rx != 0
	})
	for _, wait := range []time.Duration{0, 80 * time.Millisecond} {
		sent := time.Now()
		if _, err := client.Write([]byte("GET / HTTP/1.1\r\n\r\n")); err != nil {
			t.Fatal(err)
		}
		arrived := waitUnread(t, server, 18)
		time.Sleep(wait) // the bytes wait in the socket: the point of the test
		p := make([]byte, 64)
		n, rx, err := s.ReadStamped(p)
		if err != nil || n != 18 {
			t.Fatalf("read %d %v", n, err)
		}
		// The receive time is when the bytes reached the socket: after they
		// were sent, by the time they were seen there, not when read.
		at := Arrival(rx, time.Now(), time.Hour)
		if at.Before(sent.Add(-time.Millisecond)) || at.After(arrived.Add(time.Millisecond)) || time.Since(at) < wait {
			t.Errorf("wait %v: receive time %v after sending, %v after the bytes were seen unread, %v before now",
				wait, at.Sub(sent), at.Sub(arrived), time.Since(at))
		}
	}
	client.Close()
	if n, _, err := s.ReadStamped(make([]byte, 8)); n != 0 || err == nil {
		t.Errorf("after close: %d %v, want EOF", n, err)
	}
}

// waitUnread waits until at least n bytes sit unread in c's receive queue
// and returns when it saw them.
func waitUnread(t *testing.T, c net.Conn, n int) time.Time {
	t.Helper()
	rc, err := c.(*net.TCPConn).SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	testwait.Eventually(t, 10*time.Second, "the bytes to reach the socket", func() bool {
		var queued int32
		var errno syscall.Errno
		if err := rc.Control(func(fd uintptr) {
			_, _, errno = syscall.Syscall(syscall.SYS_IOCTL, fd, syscall.TIOCINQ, uintptr(unsafe.Pointer(&queued)))
		}); err != nil || errno != 0 {
			t.Fatalf("FIONREAD: %v %v", err, errno)
		}
		return int(queued) >= n
	})
	return time.Now()
}
