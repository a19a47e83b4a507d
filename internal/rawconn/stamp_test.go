//go:build linux

package rawconn

import (
	"net"
	"syscall"
	"testing"
	"time"
)

func TestStampedRecv(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	nc, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	srv, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	rc, err := nc.(*net.TCPConn).SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	if err := rc.Control(func(fd uintptr) { err = EnableStamps(int(fd)) }); err != nil {
		t.Fatal(err)
	}
	time.Sleep(20 * time.Millisecond) // the kernel turns stamps on a moment later
	sent := time.Now()
	srv.Write([]byte("hello"))
	time.Sleep(30 * time.Millisecond) // read well after the bytes came
	var s Stamped
	var n int
	var rx int64
	var errno syscall.Errno
	buf := make([]byte, 16)
	rc.Read(func(fd uintptr) bool {
		n, rx, errno = s.Recv(fd, buf)
		return errno != syscall.EAGAIN
	})
	now := time.Now()
	if errno != 0 || string(buf[:n]) != "hello" {
		t.Fatalf("Recv = %q, errno %v", buf[:n], errno)
	}
	at := Arrival(rx, now, time.Second)
	if at.IsZero() || at.Before(sent) || now.Sub(at) < 25*time.Millisecond {
		t.Fatalf("arrival %v after sending, read %v after: want the write's time, not the read's", at.Sub(sent), now.Sub(sent))
	}
}

func TestArrival(t *testing.T) {
	now := time.Now()
	ns := now.UnixNano()
	tests := []struct {
		name string
		rx   int64
		want time.Duration // before now; -1: zero time
	}{
		{"no stamp", 0, -1},
		{"5ms ago", ns - int64(5*time.Millisecond), 5 * time.Millisecond},
		{"in the future (clock step)", ns + int64(time.Millisecond), 0},
		{"older than maxAge", ns - int64(2*time.Second), -1},
	}
	for _, tt := range tests {
		got := Arrival(tt.rx, now, time.Second)
		if tt.want < 0 {
			if !got.IsZero() {
				t.Errorf("%s: %v, want zero", tt.name, got)
			}
			continue
		}
		if d := now.Sub(got); d != tt.want {
			t.Errorf("%s: %v before now, want %v", tt.name, d, tt.want)
		}
	}
}
