//go:build linux && !loadlab_portable

package rawconn

import (
	"bytes"
	"io"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// pair returns a raw client side and the plain server side of a loopback
// TCP connection.
func pair(t *testing.T) (*Conn, net.Conn) {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	accepted := make(chan net.Conn, 1)
	go func() {
		c, _ := l.Accept()
		accepted <- c
	}()
	nc, err := net.Dial("tcp", l.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	srv := <-accepted
	t.Cleanup(func() { nc.Close(); srv.Close() })
	c := New(nc)
	if c == nil {
		t.Fatal("New returned nil for a TCP connection")
	}
	_ = srv.SetDeadline(time.Now().Add(5 * time.Second))
	_ = nc.SetDeadline(time.Now().Add(5 * time.Second))
	return c, srv
}

// fileOf writes b to a file, open for reading until the test ends.
func fileOf(t *testing.T, b []byte) *os.File {
	t.Helper()
	path := filepath.Join(t.TempDir(), "body")
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

func TestConn(t *testing.T) {
	big := bytes.Repeat([]byte("0123456789abcdef"), 1<<16) // 1 MiB: fills socket buffers
	tests := []struct {
		name string
		run  func(t *testing.T, c *Conn, srv net.Conn)
	}{
		{"write then read", func(t *testing.T, c *Conn, srv net.Conn) {
			go func() { _, _ = io.Copy(srv, io.LimitReader(srv, int64(len(big)))) }()
			if n, err := c.Write(big); err != nil || n != len(big) {
				t.Fatalf("Write: %d, %v", n, err)
			}
			got := make([]byte, len(big))
			if _, err := io.ReadFull(c, got); err != nil || !bytes.Equal(got, big) {
				t.Fatalf("ReadFull: %v (equal %v)", err, bytes.Equal(got, big))
			}
		}},
		{"send is written by the next read", func(t *testing.T, c *Conn, srv net.Conn) {
			go func() { _, _ = io.Copy(srv, io.LimitReader(srv, int64(len(big)))) }()
			c.Send(big) // larger than the socket buffer: Read finishes it with Write
			got := make([]byte, len(big))
			if _, err := io.ReadFull(c, got); err != nil || !bytes.Equal(got, big) {
				t.Fatalf("ReadFull: %v", err)
			}
		}},
		{"read reports EOF", func(t *testing.T, c *Conn, srv net.Conn) {
			srv.Close()
			if _, err := c.Read(make([]byte, 10)); err != io.EOF {
				t.Fatalf("Read after close: %v, want io.EOF", err)
			}
		}},
		{"sendfile with head", func(t *testing.T, c *Conn, srv net.Conn) {
			f := fileOf(t, big)
			done := make(chan []byte)
			go func() {
				b, _ := io.ReadAll(io.LimitReader(srv, int64(5+len(big))))
				done <- b
			}()
			sent, ok, err := c.SendFile([]byte("head:"), f, int64(len(big)))
			if err != nil || !ok || sent != int64(len(big)) {
				t.Fatalf("SendFile: sent %d ok %v err %v", sent, ok, err)
			}
			if got := <-done; !bytes.Equal(got, append([]byte("head:"), big...)) {
				t.Fatalf("server got %d bytes, not head + body", len(got))
			}
		}},
		{"sendfile at an offset leaves the file's own offset", func(t *testing.T, c *Conn, srv net.Conn) {
			f := fileOf(t, big)
			const off = 1000
			want := append([]byte("head:"), big[off:]...)
			for range 2 { // the same handle twice: each from off
				done := make(chan []byte)
				go func() {
					b, _ := io.ReadAll(io.LimitReader(srv, int64(len(want))))
					done <- b
				}()
				sent, ok, err := c.SendFileAt([]byte("head:"), f, off, int64(len(big)-off))
				if err != nil || !ok || sent != int64(len(big)-off) {
					t.Fatalf("SendFileAt: sent %d ok %v err %v", sent, ok, err)
				}
				if got := <-done; !bytes.Equal(got, want) {
					t.Fatalf("server got %d bytes, not head + body from %d", len(got), off)
				}
			}
			if pos, err := f.Seek(0, io.SeekCurrent); err != nil || pos != 0 {
				t.Fatalf("file offset %d (%v) after SendFileAt, want 0", pos, err)
			}
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, srv := pair(t)
			tc.run(t, c, srv)
		})
	}
}
