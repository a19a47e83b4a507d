//go:build linux

package rawconn

import (
	"net"
	"testing"
	"time"
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
	for i := 0; ; i++ {
		if _, err := client.Write([]byte("x")); err != nil {
			t.Fatal(err)
		}
		_, rx, err := s.ReadStamped(make([]byte, 8))
		if err != nil {
			t.Fatal(err)
		}
		if rx != 0 {
			break
		}
		if i == 100 {
			t.Fatal("no receive time after 100 reads")
		}
		time.Sleep(10 * time.Millisecond)
	}
	for _, wait := range []time.Duration{0, 80 * time.Millisecond} {
		sent := time.Now()
		if _, err := client.Write([]byte("GET / HTTP/1.1\r\n\r\n")); err != nil {
			t.Fatal(err)
		}
		time.Sleep(wait)
		p := make([]byte, 64)
		n, rx, err := s.ReadStamped(p)
		if err != nil || n != 18 {
			t.Fatalf("read %d %v", n, err)
		}
		at := Arrival(rx, time.Now(), time.Hour)
		if at.Before(sent.Add(-time.Millisecond)) || time.Since(at) < wait || time.Since(at) > wait+time.Second {
			t.Errorf("wait %v: receive time %v after sending, %v before now", wait, at.Sub(sent), time.Since(at))
		}
	}
	client.Close()
	if n, _, err := s.ReadStamped(make([]byte, 8)); n != 0 || err == nil {
		t.Errorf("after close: %d %v, want EOF", n, err)
	}
}
