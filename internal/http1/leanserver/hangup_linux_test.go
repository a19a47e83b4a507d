//go:build linux && !loadlab_portable

package leanserver

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/loadlab/loadlab/internal/testwait"
)

// With the hangup watch a connection, once one of its requests waited on
// its context longer than the watch delay, is watched by the kernel for
// the rest of its life: a later request on it is cancelled when its
// client closes, from its start, before its handler asked for Done or an
// AfterFunc (a watcher's read would only start then, a watch delay
// later).
func TestLeanHangupWatchFromRequestStart(t *testing.T) {
	got := make(chan error, 1)
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/first" {
			_ = r.Context().Done() // the connection joins the watch after the delay
			testwait.Until(10*time.Second, func() bool { return watchedSockets(t) == 1 })
			_, _ = io.WriteString(w, "ok")
			return
		}
		// Err alone starts no watch of its own.
		testwait.Until(10*time.Second, func() bool { return r.Context().Err() != nil })
		got <- r.Context().Err()
	})
	u := startLean(t, Config{}, h)
	c, err := net.Dial("tcp", strings.TrimPrefix(u, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(20 * time.Second))
	br := bufio.NewReader(c)
	_, _ = io.WriteString(c, "GET /first HTTP/1.1\r\nHost: x\r\n\r\n")
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	_, _ = io.WriteString(c, "GET /second HTTP/1.1\r\nHost: x\r\n\r\n")
	c.Close()
	if err := <-got; !errors.Is(err, context.Canceled) {
		t.Fatalf("the second request's context after its client closed: Err %v, want Canceled", err)
	}
}

// The hangup watch's goroutine ends with the server, and a connection
// leaves the watch's epoll set when it closes or is handed to net/http's
// server (counted in the kernel's own list of the set, /proc/self/fdinfo).
func TestLeanHangupWatchEnds(t *testing.T) {
	running := func() bool {
		buf := make([]byte, 1<<20)
		return strings.Contains(string(buf[:runtime.Stack(buf, true)]), "hangup.(*Watch).run")
	}
	testwait.Eventually(t, 10*time.Second, "no hangup watch left by earlier tests", func() bool { return !running() })
	// Each request waits on its context until its connection joined the
	// watch (the query says how many are in it then).
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_ = r.Context().Done()
		want, _ := strconv.Atoi(r.URL.Query().Get("n"))
		testwait.Until(10*time.Second, func() bool { return watchedSockets(t) >= want })
		_, _ = io.WriteString(w, "ok")
	})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- Serve(ctx, ln, Config{}, h, &http.Server{Handler: h}, nil, nil) }()
	addr := ln.Addr().String()
	// get sends raw on c and reads n answers.
	get := func(c net.Conn, br *bufio.Reader, raw string, n int) {
		t.Helper()
		_, _ = io.WriteString(c, raw)
		for i := 0; i < n; i++ {
			resp, err := http.ReadResponse(br, nil)
			if err != nil {
				t.Fatal(err)
			}
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
	}
	dial := func() (net.Conn, *bufio.Reader) {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		_ = c.SetDeadline(time.Now().Add(20 * time.Second))
		return c, bufio.NewReader(c)
	}
	a, abr := dial()
	defer a.Close()
	get(a, abr, "GET /a?n=1 HTTP/1.1\r\nHost: x\r\n\r\n", 1)
	if !running() {
		t.Fatal("no hangup watch for a request waiting on its context")
	}
	testwait.Eventually(t, 10*time.Second, "one connection in the watch", func() bool { return watchedSockets(t) == 1 })
	// b joins, then is handed to net/http's server (a chunked body), and
	// stays open there.
	b, bbr := dial()
	defer b.Close()
	get(b, bbr, "GET /b?n=2 HTTP/1.1\r\nHost: x\r\n\r\nPOST /b HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", 2)
	testwait.Eventually(t, 10*time.Second, "the handed connection out of the watch", func() bool { return watchedSockets(t) == 1 })
	// A client that closes, and a server that closes after its answer.
	a.Close()
	testwait.Eventually(t, 10*time.Second, "the closed connection out of the watch", func() bool { return watchedSockets(t) == 0 })
	c, cbr := dial()
	defer c.Close()
	get(c, cbr, "GET /c?n=1 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", 1)
	testwait.Eventually(t, 10*time.Second, "the connection the server closed out of the watch", func() bool { return watchedSockets(t) == 0 })
	b.Close()
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("Serve: %v", err)
	}
	testwait.Eventually(t, 10*time.Second, "the hangup watch's goroutine to end with the server", func() bool { return !running() })
}

// watchedSockets counts the sockets in this process's epoll sets that are
// watched as the hangup watch watches them (EPOLLRDHUP and edge-triggered,
// with EPOLLERR and EPOLLHUP: events 80002018; the runtime's poller asks
// for EPOLLIN and EPOLLOUT too).
func watchedSockets(t *testing.T) int {
	t.Helper()
	fds, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, fd := range fds {
		if l, err := os.Readlink("/proc/self/fd/" + fd.Name()); err != nil || l != "anon_inode:[eventpoll]" {
			continue
		}
		info, err := os.ReadFile("/proc/self/fdinfo/" + fd.Name())
		if err != nil {
			continue
		}
		for _, line := range strings.Split(string(info), "\n") {
			if strings.HasPrefix(line, "tfd:") && strings.Contains(line, "events: 80002018 ") {
				n++
			}
		}
	}
	return n
}

// A keep-alive connection joins the hangup watch at its second request
// that waits on its context, as the handler asks (no watch delay, no
// timer): the first, answered at once, left it out.
func TestLeanHangupWatchKeepAliveJoinsAtOnce(t *testing.T) {
	testwait.Eventually(t, 10*time.Second, "no socket watched by earlier tests", func() bool { return watchedSockets(t) == 0 })
	in := make(chan int, 2)
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_ = r.Context().Done()
		in <- watchedSockets(t)
		_, _ = io.WriteString(w, "ok")
	})
	u := startLean(t, Config{}, h)
	c, err := net.Dial("tcp", strings.TrimPrefix(u, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(20 * time.Second))
	br := bufio.NewReader(c)
	for i := 0; i < 2; i++ {
		_, _ = io.WriteString(c, "GET /x HTTP/1.1\r\nHost: x\r\n\r\n")
		resp, err := http.ReadResponse(br, nil)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	if first, second := <-in, <-in; first != 0 || second != 1 {
		t.Fatalf("sockets watched while the first and second requests waited: %d, %d; want 0, 1", first, second)
	}
}
