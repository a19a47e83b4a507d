package leanserver

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/loadlab/loadlab/internal/testwait"
)

// A handler that asks for its context's Done before it reads the body
// (the proxy does: context.WithTimeout, then the upstream exchange) gets
// every byte of the body: the client is watched only once the body has
// been read.
func TestLeanBodyIntactWhenDoneAskedFirst(t *testing.T) {
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx, cancel := context.WithTimeout(r.Context(), 5*time.Second)
		defer cancel()
		_ = ctx.Done()
		time.Sleep(3 * watchDelay) // the watch delay passes before the read
		b, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, err.Error(), 500)
			return
		}
		_, _ = io.WriteString(w, "got "+string(b))
	})
	u := startLean(t, Config{}, h)
	c, err := net.Dial("tcp", strings.TrimPrefix(u, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(5 * time.Second))
	body := strings.Repeat("b", 1000)
	// The head first, the body once the handler waits on Done.
	_, _ = io.WriteString(c, "POST /x HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Length: 1000\r\n\r\n")
	time.Sleep(2 * watchDelay)
	_, _ = io.WriteString(c, body)
	b, _ := io.ReadAll(c)
	if !strings.Contains(string(b), "got "+body) {
		t.Fatalf("the handler did not get the whole body: %q", b)
	}
}

// A client that goes away cancels the context, runs AfterFunc callbacks
// (but not stopped ones) and, through context.WithTimeout, derived
// contexts, once the watch delay has passed.
func TestLeanClientGoneCancels(t *testing.T) {
	type result struct {
		err              error
		ran, stoppedRan  bool
		derived, stopped bool
	}
	got := make(chan result, 1)
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx := r.Context()
		ran := make(chan struct{})
		stopRan := make(chan struct{})
		context.AfterFunc(ctx, func() { close(ran) })
		stop := context.AfterFunc(ctx, func() { close(stopRan) })
		stopped := stop()
		dctx, cancel := context.WithTimeout(ctx, time.Minute)
		defer cancel()
		var res result
		select {
		case <-dctx.Done():
			res.derived = true
		case <-time.After(5 * time.Second):
		}
		select {
		case <-ran:
			res.ran = true
		case <-time.After(5 * time.Second):
		}
		select {
		case <-stopRan:
			res.stoppedRan = true
		default:
		}
		res.err, res.stopped = ctx.Err(), stopped
		got <- res
	})
	u := startLean(t, Config{}, h)
	c, err := net.Dial("tcp", strings.TrimPrefix(u, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.WriteString(c, "GET /x HTTP/1.1\r\nHost: x\r\n\r\n")
	time.Sleep(5 * watchDelay) // the handler is waiting
	c.Close()
	r := <-got
	if r.err != context.Canceled || !r.derived || !r.ran {
		t.Errorf("after the client left: Err %v, derived context done %v, AfterFunc ran %v; want Canceled, true, true", r.err, r.derived, r.ran)
	}
	if !r.stopped || r.stoppedRan {
		t.Errorf("a stopped AfterFunc: stop reported %v, ran %v; want true, false", r.stopped, r.stoppedRan)
	}
}

// Fast answers never start a watcher: keep-alive requests that ask for
// Done are served one after the other on one connection, and the context
// of each is not cancelled.
func TestLeanFastAnswersKeepConnection(t *testing.T) {
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx, cancel := context.WithTimeout(r.Context(), time.Second)
		defer cancel()
		_ = ctx.Done()
		if ctx.Err() != nil {
			http.Error(w, "cancelled", 500)
			return
		}
		_, _ = io.WriteString(w, "ok")
	})
	u, cl, opened := startOneConn(t, h)
	getOK(t, cl, u+"/x", 200)
	if n := opened.Load(); n != 1 {
		t.Errorf("200 requests took %d connections, want 1", n)
	}
}

// The client watch runs on one timer per connection, reset per request: a
// later request on a keep-alive connection, after earlier ones armed and
// stopped that timer, still notices its client leaving.
func TestLeanClientGoneOnReusedConnection(t *testing.T) {
	got := make(chan error, 1)
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/fast" {
			_ = r.Context().Done()
			_, _ = io.WriteString(w, "ok")
			return
		}
		select {
		case <-r.Context().Done():
		case <-time.After(5 * time.Second):
		}
		got <- r.Context().Err()
	})
	u, cl, opened := startOneConn(t, h)
	getOK(t, cl, u+"/fast", 3)
	// The fourth request leaves after the watch delay: the transport then
	// closes the connection.
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(5*watchDelay, cancel)
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, u+"/wait", nil)
	if resp, err := cl.Do(req); err == nil {
		resp.Body.Close()
		t.Fatal("the fourth request was answered, want it abandoned")
	}
	select {
	case err := <-got:
		if err != context.Canceled {
			t.Fatalf("after the client left, the fourth request's context: Err %v, want Canceled", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the handler did not return")
	}
	if n := opened.Load(); n != 1 {
		t.Errorf("4 requests took %d connections, want 1 (the timer reuse is not tested)", n)
	}
}

// startOneConn serves h with the lean server; it returns the server's URL,
// a client that keeps one connection to it, and a count of the
// connections the server accepted from that client. Connections from
// elsewhere are not counted (logged): a port the server got may have
// served an earlier test's server, whose clients, still running, then
// reach this one.
func startOneConn(t *testing.T, h http.Handler) (string, *http.Client, *connCount) {
	t.Helper()
	cc := &connCount{dialed: map[string]bool{}}
	u := startLean(t, Config{ConnContext: func(ctx context.Context, c net.Conn) context.Context {
		cc.accepted(t, c.RemoteAddr().String())
		return ctx
	}}, h)
	var d net.Dialer
	tr := &http.Transport{MaxConnsPerHost: 1, DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := d.DialContext(ctx, network, addr)
		if err == nil {
			cc.dial(c.LocalAddr().String())
		}
		return c, err
	}}
	t.Cleanup(tr.CloseIdleConnections)
	return u, &http.Client{Transport: tr}, cc
}

// connCount counts the connections a server accepted from one client.
type connCount struct {
	mu     sync.Mutex
	dialed map[string]bool // the client's local addresses
	n      int64
}

func (c *connCount) dial(local string) {
	c.mu.Lock()
	c.dialed[local] = true
	c.mu.Unlock()
}

// accepted counts a connection the server accepted from remote. The
// client's dial returns once the connection is established, which may be
// after the server accepted it: its address is waited for a little.
func (c *connCount) accepted(t *testing.T, remote string) {
	ok := testwait.Until(2*time.Second, func() bool {
		c.mu.Lock()
		defer c.mu.Unlock()
		return c.dialed[remote]
	})
	if !ok {
		t.Logf("a connection from %s, not this test's client: not counted", remote)
		return
	}
	c.mu.Lock()
	c.n++
	c.mu.Unlock()
}

// Load is the count.
func (c *connCount) Load() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n
}

// getOK gets url n times with cl, each answer "ok".
func getOK(t *testing.T, cl *http.Client, url string, n int) {
	t.Helper()
	for i := 0; i < n; i++ {
		resp, err := cl.Get(url)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if string(b) != "ok" {
			t.Fatalf("request %d: %q", i, b)
		}
	}
}

// Many requests are watched at once: on 8 connections, slow requests
// (sent a third of a watch delay apart, so that their delays end at
// different times) wait on their context while fast ones come and go on
// 4 others; each slow request's client leaves at its own time (staggered
// by a few watch delays), and each slow handler sees its own
// cancellation, none of the fast ones theirs.
func TestLeanWatchManyRequests(t *testing.T) {
	const slow, fast = 8, 4
	cancelled := make(chan string, slow+fast*50)
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/fast" {
			select {
			case <-r.Context().Done():
				cancelled <- "fast"
			default:
			}
			_, _ = io.WriteString(w, "ok")
			return
		}
		select {
		case <-r.Context().Done():
			cancelled <- r.URL.Path
		case <-time.After(10 * time.Second):
		}
	})
	u := startLean(t, Config{}, h)
	addr := strings.TrimPrefix(u, "http://")
	var conns []net.Conn
	for i := 0; i < slow; i++ {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		fmt.Fprintf(c, "GET /slow%d HTTP/1.1\r\nHost: x\r\n\r\n", i)
		conns = append(conns, c)
		time.Sleep(watchDelay / 3)
	}
	done := make(chan error, fast)
	for i := 0; i < fast; i++ {
		go func() {
			c, err := net.Dial("tcp", addr)
			if err != nil {
				done <- err
				return
			}
			defer c.Close()
			_ = c.SetDeadline(time.Now().Add(10 * time.Second))
			br := bufio.NewReader(c)
			for j := 0; j < 50; j++ {
				_, _ = io.WriteString(c, "GET /fast HTTP/1.1\r\nHost: x\r\n\r\n")
				resp, err := http.ReadResponse(br, nil)
				if err != nil {
					done <- err
					return
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				time.Sleep(watchDelay / 4)
			}
			done <- nil
		}()
	}
	for i, c := range conns {
		time.Sleep(watchDelay * time.Duration(1+i%3))
		c.Close()
	}
	for i := 0; i < fast; i++ {
		if err := <-done; err != nil {
			t.Fatalf("fast requests: %v", err)
		}
	}
	seen := map[string]bool{}
	timeout := time.After(10 * time.Second)
	for len(seen) < slow {
		select {
		case p := <-cancelled:
			if p == "fast" {
				t.Fatal("a fast request's context was cancelled; its client stayed")
			}
			seen[p] = true
		case <-timeout:
			t.Fatalf("after every slow request's client left, %d of %d handlers saw their context cancelled: %v", len(seen), slow, seen)
		}
	}
}

// A watched request's watcher, its read still waiting, is handed to the
// connection as its next read (reqCtx.stop): on one keep-alive
// connection, requests that outlive the watch delay are answered one
// after the other, sent one at a time, pipelined (the next request then
// reaches the watcher during the one before) and three in one write
// (the next ones already read: no watcher handed over), their contexts
// never cancelled; after the last, the connection still closes at the idle
// timeout (the idle deadline bounds the handed-over read), and the
// handler of a request whose client left is still told.
func TestLeanWatcherHandedToNextRequest(t *testing.T) {
	const idle = 300 * time.Millisecond
	cancelled := make(chan string, 16)
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// Every request outlives the watch delay; the one whose client
		// leaves waits for that, however late a loaded machine runs its
		// watcher (a wait of a few watch delays would race the watcher
		// and answer first).
		wait := 3 * watchDelay
		if r.URL.Path == "/left" {
			wait = 10 * time.Second
		}
		select {
		case <-r.Context().Done():
			cancelled <- r.URL.Path
			return
		case <-time.After(wait):
		}
		_, _ = io.WriteString(w, "ok "+r.URL.Path)
	})
	u := startLean(t, Config{IdleTimeout: idle}, h)
	c, err := net.Dial("tcp", strings.TrimPrefix(u, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(20 * time.Second))
	br := bufio.NewReader(c)
	read := func(path string) {
		t.Helper()
		resp, err := http.ReadResponse(br, nil)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if string(b) != "ok "+path {
			t.Fatalf("%s: got %q", path, b)
		}
	}
	for i := 0; i < 4; i++ { // one at a time
		p := fmt.Sprintf("/one%d", i)
		fmt.Fprintf(c, "GET %s HTTP/1.1\r\nHost: x\r\n\r\n", p)
		read(p)
	}
	for i := 0; i < 4; i++ { // pipelined: each next request comes during the one before
		fmt.Fprintf(c, "GET /pipe%d HTTP/1.1\r\nHost: x\r\n\r\n", i)
		time.Sleep(watchDelay)
	}
	for i := 0; i < 4; i++ {
		read(fmt.Sprintf("/pipe%d", i))
	}
	// Three in one write: the next ones are already read when a watcher
	// would be handed over.
	_, _ = io.WriteString(c, "GET /burst0 HTTP/1.1\r\nHost: x\r\n\r\nGET /burst1 HTTP/1.1\r\nHost: x\r\n\r\nGET /burst2 HTTP/1.1\r\nHost: x\r\n\r\n")
	for i := 0; i < 3; i++ {
		read(fmt.Sprintf("/burst%d", i))
	}
	select {
	case p := <-cancelled:
		t.Fatalf("%s was cancelled; its client stayed", p)
	default:
	}
	last := time.Now()
	if b, err := br.ReadByte(); err == nil {
		t.Fatalf("read %q after the last answer, want the connection closed at the idle timeout", b)
	}
	if d := time.Since(last); d < idle-50*time.Millisecond || d > idle+5*time.Second {
		t.Fatalf("closed %v after the last answer, want the idle timeout (%v)", d, idle)
	}

	// A client leaving during a watched request after others on its
	// connection: its handler is told.
	c2, err := net.Dial("tcp", strings.TrimPrefix(u, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	_ = c2.SetDeadline(time.Now().Add(20 * time.Second))
	br = bufio.NewReader(c2)
	for i := 0; i < 2; i++ {
		p := fmt.Sprintf("/again%d", i)
		fmt.Fprintf(c2, "GET %s HTTP/1.1\r\nHost: x\r\n\r\n", p)
		read(p)
	}
	fmt.Fprintf(c2, "GET /left HTTP/1.1\r\nHost: x\r\n\r\n")
	time.Sleep(2 * watchDelay)
	c2.Close()
	select {
	case p := <-cancelled:
		if p != "/left" {
			t.Fatalf("%s cancelled, want /left", p)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the handler of /left was not told its client left")
	}
}

// A client that sends its next request during a watched one and then
// closes its end has not left the first: that one is answered, its
// context never cancelled, and the next is cancelled (its client closed
// with nothing more to read). The hangup watch looks at the socket
// without taking the next request's bytes; a watcher's read takes them
// for the connection.
func TestLeanRequestBeforeCloseIsNotLeaving(t *testing.T) {
	in := make(chan struct{}, 1)
	got := make(chan string, 2)
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/first" {
			in <- struct{}{}
			select {
			case <-r.Context().Done():
				got <- "first cancelled"
				return
			case <-time.After(5 * watchDelay):
			}
			got <- "first not cancelled"
			_, _ = io.WriteString(w, "ok")
			return
		}
		select {
		case <-r.Context().Done():
			got <- "second cancelled"
		case <-time.After(10 * time.Second):
			got <- "second not cancelled"
		}
	})
	u := startLean(t, Config{}, h)
	c, err := net.Dial("tcp", strings.TrimPrefix(u, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(20 * time.Second))
	_, _ = io.WriteString(c, "GET /first HTTP/1.1\r\nHost: x\r\n\r\n")
	<-in
	_, _ = io.WriteString(c, "GET /second HTTP/1.1\r\nHost: x\r\n\r\n")
	_ = c.(*net.TCPConn).CloseWrite()
	if g := <-got; g != "first not cancelled" {
		t.Fatalf("%s, want the first request answered", g)
	}
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatalf("the first answer: %v", err)
	}
	resp.Body.Close()
	if g := <-got; g != "second cancelled" {
		t.Fatalf("%s, want the second request's context cancelled", g)
	}
}

// The watch by a read of the connection (where there is no hangup watch)
// keeps every guarantee of the watch tests.
func TestLeanWatchByReads(t *testing.T) {
	noHangupWatch.Store(true)
	defer noHangupWatch.Store(false)
	for name, f := range map[string]func(*testing.T){
		"BodyIntactWhenDoneAskedFirst":   TestLeanBodyIntactWhenDoneAskedFirst,
		"ClientGoneCancels":              TestLeanClientGoneCancels,
		"FastAnswersKeepConnection":      TestLeanFastAnswersKeepConnection,
		"ClientGoneOnReusedConnection":   TestLeanClientGoneOnReusedConnection,
		"WatchManyRequests":              TestLeanWatchManyRequests,
		"WatcherHandedToNextRequest":     TestLeanWatcherHandedToNextRequest,
		"RequestBeforeCloseIsNotLeaving": TestLeanRequestBeforeCloseIsNotLeaving,
	} {
		t.Run(name, f)
	}
}
