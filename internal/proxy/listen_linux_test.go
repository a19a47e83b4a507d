//go:build linux

package proxy

import (
	"bufio"
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/loadlab/loadlab/internal/testwait"
)

// The proxy's listener turns no TCP keep-alive probes on for its clients'
// connections (Go's default listener does, four system calls per accepted
// connection): the accepted socket, found among this process's
// descriptors by its two ends, has SO_KEEPALIVE off.
func TestServeClientConnectionsWithoutKeepAliveProbes(t *testing.T) {
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _, _ = io.WriteString(w, "ok") }))
	t.Cleanup(up.Close)
	file := filepath.Join(t.TempDir(), "proxy.yaml")
	cfg := "pools:\n  default: {size: 1}\nroutes:\n  - {name: all, path: /*, upstream: \"" + up.URL + "\", pool: default}\n"
	if err := os.WriteFile(file, []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	ready, done := make(chan string, 1), make(chan error, 1)
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		done <- Serve(ctx, ServeOptions{ConfigFile: file, Listen: "127.0.0.1:0", Ready: func(url string) { ready <- url }})
	}()
	defer func() { cancel(); <-done }()
	var addr string
	select {
	case u := <-ready:
		addr = strings.TrimPrefix(u, "http://")
	case err := <-done:
		t.Fatal(err)
	}
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(10 * time.Second))
	_, _ = io.WriteString(c, "GET /x HTTP/1.1\r\nHost: x\r\n\r\n")
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	client := c.LocalAddr().(*net.TCPAddr)
	server := c.RemoteAddr().(*net.TCPAddr)
	var fd int
	testwait.Eventually(t, 5*time.Second, "the accepted socket among this process's descriptors", func() bool {
		fd = acceptedSocket(t, server.Port, client.Port)
		return fd >= 0
	})
	on, err := syscall.GetsockoptInt(fd, syscall.SOL_SOCKET, syscall.SO_KEEPALIVE)
	if err != nil {
		t.Fatal(err)
	}
	if on != 0 {
		t.Fatal("the client's connection has TCP keep-alive probes on, want off")
	}
}

// acceptedSocket is the descriptor of this process's TCP socket bound to
// port local whose peer is at port peer (both on loopback), or -1.
func acceptedSocket(t *testing.T, local, peer int) int {
	t.Helper()
	fds, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range fds {
		fd, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if l, err := os.Readlink("/proc/self/fd/" + e.Name()); err != nil || !strings.HasPrefix(l, "socket:") {
			continue
		}
		sa, err := syscall.Getsockname(fd)
		if a, ok := sa.(*syscall.SockaddrInet4); err != nil || !ok || a.Port != local {
			continue
		}
		pa, err := syscall.Getpeername(fd)
		if a, ok := pa.(*syscall.SockaddrInet4); err == nil && ok && a.Port == peer {
			return fd
		}
	}
	return -1
}
