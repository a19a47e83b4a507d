package main

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// addrs receives each mode's listening address (onListen, set once here
// before any mode starts).
var addrs = make(chan net.Addr, 4)

func init() { onListen = func(a net.Addr) { addrs <- a } }

// start runs a mode against upstream (a pool of 2, so that clients wait
// for a connection) and returns its address. Modes serve until the test
// binary exits.
func start(t *testing.T, mode, upstream string) string {
	t.Helper()
	errc := make(chan error, 1)
	go func() {
		if strings.HasPrefix(mode, "epoll") {
			errc <- runEpoll("127.0.0.1:0", upstream, 2, strings.Contains(mode, "+rewrite"))
		} else {
			raw := strings.HasPrefix(mode, "relay-raw")
			errc <- runRelay("127.0.0.1:0", upstream, 2, options{raw: raw, deferAnswer: raw,
				manager: strings.Contains(mode, "+manager"), deadlines: strings.Contains(mode, "+deadlines"),
				rewrite: strings.Contains(mode, "+rewrite"), stamps: strings.Contains(mode, "+stamps"),
				watch: strings.Contains(mode, "+watch")})
		}
	}()
	select {
	case a := <-addrs:
		return a.String()
	case err := <-errc:
		t.Fatalf("%s: %v", mode, err)
	case <-time.After(10 * time.Second):
		t.Fatalf("%s: not listening after 10 s", mode)
	}
	return ""
}

// TestModesRelay sends GETs through each mode to a real net/http origin
// on loopback, over several keep-alive connections at once and more
// connections than the pool has: short answers and one longer than the
// buffers, each body as the origin sent it; a request with a body closes
// the connection unanswered.
func TestModesRelay(t *testing.T) {
	long := strings.Repeat("0123456789", 5000) // 50 kB: several buffers
	origin := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/long" {
			w.Header().Set("Content-Length", fmt.Sprint(len(long)))
			io.WriteString(w, long)
			return
		}
		io.WriteString(w, "answer to "+r.URL.Path)
	}))
	defer origin.Close()
	up := strings.TrimPrefix(origin.URL, "http://")
	for _, mode := range []string{"relay", "relay-raw", "relay+manager+deadlines", "relay-raw+manager+deadlines+rewrite+stamps+watch", "epoll", "epoll+rewrite"} {
		t.Run(mode, func(t *testing.T) {
			addr := start(t, mode, up)
			done := make(chan error, 4)
			for c := range 4 {
				go func() { done <- client(addr, c, long) }()
			}
			for range 4 {
				if err := <-done; err != nil {
					t.Error(err)
				}
			}
			nc, err := net.Dial("tcp", addr)
			if err != nil {
				t.Fatal(err)
			}
			defer nc.Close()
			nc.SetDeadline(time.Now().Add(10 * time.Second))
			io.WriteString(nc, "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\nhi")
			if b, err := io.ReadAll(nc); err != nil || len(b) != 0 {
				t.Errorf("POST: got %q, %v; want the connection closed unanswered", b, err)
			}
		})
	}
}

// With -watch a client that leaves while the upstream is slow breaks the
// upstream exchange off: the origin sees its request cancelled (its
// connection closed by the floor) rather than answering it 10 s later,
// and the floor serves the next client.
func TestWatchBreaksOffExchange(t *testing.T) {
	arrived, cancelled := make(chan struct{}, 1), make(chan bool, 1)
	origin := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/slow" {
			arrived <- struct{}{}
			select {
			case <-r.Context().Done():
				cancelled <- true
				return
			case <-time.After(10 * time.Second):
				cancelled <- false
			}
		}
		io.WriteString(w, "answer to "+r.URL.Path)
	}))
	defer origin.Close()
	// No -deadlines: the request timeout would break the exchange off too.
	addr := start(t, "relay-raw+manager+rewrite+stamps+watch", strings.TrimPrefix(origin.URL, "http://"))
	nc, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	io.WriteString(nc, "GET /slow HTTP/1.1\r\nHost: x\r\n\r\n")
	<-arrived
	nc.Close()
	if !<-cancelled {
		t.Fatal("the origin answered after the client left: the exchange was not broken off")
	}
	if err := client(addr, 0, "answer to /long"); err != nil {
		t.Fatalf("after: %v", err)
	}
}

// client sends 50 GETs on one keep-alive connection (every tenth for the
// long answer) and checks each answer.
func client(addr string, c int, long string) error {
	nc, err := net.Dial("tcp", addr)
	if err != nil {
		return err
	}
	defer nc.Close()
	nc.SetDeadline(time.Now().Add(20 * time.Second))
	br := bufio.NewReader(nc)
	for i := range 50 {
		path, want := fmt.Sprintf("/c%d/r%d", c, i), ""
		want = "answer to " + path
		if i%10 == 9 {
			path, want = "/long", long
		}
		req, _ := http.NewRequest("GET", "http://"+addr+path, nil)
		if err := req.Write(nc); err != nil {
			return err
		}
		resp, err := http.ReadResponse(br, req)
		if err != nil {
			return fmt.Errorf("client %d, request %d: %v", c, i, err)
		}
		b, err := io.ReadAll(resp.Body)
		if err != nil || string(b) != want {
			return fmt.Errorf("client %d, request %d: got %d bytes (%.30q), %v; want %.30q", c, i, len(b), b, err, want)
		}
	}
	return nil
}

func TestAnswerLength(t *testing.T) {
	for _, tc := range []struct {
		head string
		n    int // -1: refused
	}{
		{"HTTP/1.1 200 OK\r\nContent-Length: 600\r\nDate: x\r\n\r\n", 600},
		{"HTTP/1.1 200\r\ncontent-length:\t7 \r\n\r\n", 7},
		{"HTTP/1.1 206 Partial\r\nContent-Length: 0\r\n\r\n", 0},
		{"HTTP/1.1 200 OK\r\n\r\n", -1},                                           // no length
		{"HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Length: 5\r\n\r\n", -1}, // twice
		{"HTTP/1.1 200 OK\r\nContent-Length: +5\r\n\r\n", -1},
		{"HTTP/1.1 200 OK\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n", -1},
		{"HTTP/1.1 200 OK\r\nContent-Length: 5\r\nConnection: close\r\n\r\n", -1},
		{"HTTP/1.1 200 OK\r\nContent-Length: 5\r\n 6\r\n\r\n", -1}, // folded
		{"HTTP/1.1 200 OK\r\nContent Length: 5\r\n\r\n", -1},
		{"HTTP/1.1 204 No Content\r\nContent-Length: 5\r\n\r\n", -1},
		{"HTTP/1.1 304 Not Modified\r\nContent-Length: 5\r\n\r\n", -1},
		{"HTTP/1.0 200 OK\r\nContent-Length: 5\r\n\r\n", -1},
		{"HTTP/1.1 2000 OK\r\nContent-Length: 5\r\n\r\n", -1},
	} {
		n, ok := answerLength([]byte(tc.head))
		if want := tc.n + len(tc.head); (tc.n < 0) == ok || ok && n != want {
			t.Errorf("answerLength(%q) = %d, %v; want body %d", tc.head, n, ok, tc.n)
		}
	}
}

func TestPlainGET(t *testing.T) {
	for head, want := range map[string]bool{
		"GET /x HTTP/1.1\r\nHost: a\r\n\r\n":                       true,
		"GET /x HTTP/1.1\r\nHost: a\r\nContent-Length: 0\r\n\r\n":  false,
		"GET /x HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n":    false,
		"POST /x HTTP/1.1\r\nHost: a\r\n\r\n":                      false,
		"GET /x HTTP/1.1\r\nHost: a\r\n Content-Length: 3\r\n\r\n": false,
	} {
		if got := plainGET([]byte(head)); got != want {
			t.Errorf("plainGET(%q) = %v, want %v", head, got, want)
		}
	}
}

// TestNoAllocations: the parsing and rewriting done per request allocate
// nothing.
func TestNoAllocations(t *testing.T) {
	req := []byte("GET /x HTTP/1.1\r\nHost: a\r\nUser-Agent: b\r\n\r\n")
	resp := []byte("HTTP/1.1 200 OK\r\nContent-Length: 600\r\nDate: x\r\nCache-Control: private\r\n\r\n")
	out, host, ip := make([]byte, 0, bufSize), []byte("127.0.0.1:9"), []byte("127.0.0.1")
	if n := testing.AllocsPerRun(100, func() {
		if headEnd(req) < 0 || !plainGET(req) {
			t.Fatal("request refused")
		}
		out = rewriteHead(out[:0], req, host, ip)
		if _, ok := answerLength(resp); !ok {
			t.Fatal("answer refused")
		}
	}); n != 0 {
		t.Errorf("%v allocations per request, want 0", n)
	}
}

// FuzzAnswerLength: every head answerLength takes reads the same through
// net/http (a 2xx answer, not chunked, the same body length), so the
// relay never passes on what an HTTP client would frame differently.
func FuzzAnswerLength(f *testing.F) {
	f.Add([]byte("HTTP/1.1 200 OK\r\nContent-Length: 600\r\nDate: x\r\n\r\n"))
	f.Add([]byte("HTTP/1.1 200\r\ncontent-length:\t7 \r\n\r\n"))
	f.Add([]byte("HTTP/1.1 201 OK\r\nX: y\r\nContent-Length: 12\r\n\r\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		end := headEnd(b)
		if end < 0 {
			return
		}
		n, ok := answerLength(b[:end])
		if !ok {
			return
		}
		body := n - end
		msg := append(append([]byte{}, b[:end]...), bytes.Repeat([]byte("x"), body)...)
		resp, err := http.ReadResponse(bufio.NewReader(bytes.NewReader(msg)), &http.Request{Method: "GET"})
		if err != nil {
			t.Fatalf("taken with body %d, net/http: %v", body, err)
		}
		if resp.StatusCode/100 != 2 || resp.ContentLength != int64(body) || len(resp.TransferEncoding) > 0 || resp.Close {
			t.Fatalf("taken with body %d, net/http: status %d, length %d, %v, close %v", body, resp.StatusCode, resp.ContentLength, resp.TransferEncoding, resp.Close)
		}
	})
}

func TestCheckArgs(t *testing.T) {
	for _, tc := range []struct {
		mode, listen, upstream string
		size                   int
		want                   string
	}{
		{"relay", "127.0.0.1:0", "127.0.0.1:80", 64, ""},
		{"epoll", "[::1]:0", "127.0.0.1:80", 1, ""},
		{"nginx", "127.0.0.1:0", "127.0.0.1:80", 64, "-mode"},
		{"relay", "127.0.0.1:0", "10.0.0.1:80", 64, "-upstream: want a loopback address"},
		{"relay", "0.0.0.0:0", "127.0.0.1:80", 64, "-listen: want a loopback address"},
		{"relay", "127.0.0.1:0", "localhost", 64, "-upstream: want host:port"},
		{"relay", "127.0.0.1:0", "127.0.0.1:80", 0, "-pool"},
	} {
		err := checkArgs(tc.mode, tc.listen, tc.upstream, tc.size, time.Minute)
		if (err == nil) != (tc.want == "") || err != nil && !strings.Contains(err.Error(), tc.want) {
			t.Errorf("checkArgs(%q, %q, %q, %d) = %v, want %q", tc.mode, tc.listen, tc.upstream, tc.size, err, tc.want)
		}
	}
}

// TestRewriteHead: the head passed on reads through net/http with the
// upstream's Host, no hop-by-hop field nor one Connection names, the
// client's address last in X-Forwarded-For, every other field as sent.
func TestRewriteHead(t *testing.T) {
	for _, tc := range []struct{ head, xff string }{
		{"GET /a?b HTTP/1.1\r\nHost: front\r\nUser-Agent: u\r\nConnection: keep-alive, X-Drop\r\nX-Drop: 1\r\nKeep-Alive: 5\r\nAccept: */*\r\n\r\n", "10.0.0.9"},
		{"GET / HTTP/1.1\r\nX-Forwarded-For: 1.1.1.1\r\nHost: front\r\nX-Forwarded-For: 2.2.2.2\r\nTe: trailers\r\n\r\n", "1.1.1.1, 2.2.2.2, 10.0.0.9"},
	} {
		if !plainGET([]byte(tc.head)) {
			t.Fatalf("plainGET refused %q", tc.head)
		}
		out := rewriteHead(nil, []byte(tc.head), []byte("127.0.0.1:9"), []byte("10.0.0.9"))
		req, err := http.ReadRequest(bufio.NewReader(bytes.NewReader(out)))
		if err != nil {
			t.Fatalf("%q: %v", out, err)
		}
		orig, _ := http.ReadRequest(bufio.NewReader(strings.NewReader(tc.head)))
		if req.Host != "127.0.0.1:9" || req.RequestURI != orig.RequestURI {
			t.Errorf("%q: host %q, URI %q", out, req.Host, req.RequestURI)
		}
		if got := strings.Join(req.Header.Values("X-Forwarded-For"), ", "); got != tc.xff {
			t.Errorf("%q: X-Forwarded-For %q, want %q", out, got, tc.xff)
		}
		for _, k := range []string{"Connection", "Keep-Alive", "Te", "X-Drop"} {
			if _, ok := req.Header[k]; ok {
				t.Errorf("%q: %s passed on", out, k)
			}
		}
		for k, v := range orig.Header {
			if k == "Connection" || k == "Keep-Alive" || k == "Te" || k == "X-Drop" || k == "X-Forwarded-For" {
				continue
			}
			if got := req.Header[k]; strings.Join(got, "\n") != strings.Join(v, "\n") {
				t.Errorf("%q: %s = %q, want %q", out, k, got, v)
			}
		}
	}
}
