package proxy

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net"
	"net/http"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/loadlab/loadlab/internal/testwait"
)

// rawUpstream is an upstream on loopback that records every request head
// as received (by the id in its query) and answers with the canned answer
// the last part of its path names (/a/N): bytes as they are, then the connection closed if
// the answer says "Connection: close". A path holding /slow waits 2 s first.
type rawUpstream struct {
	addr    string
	answers []string
	mu      sync.Mutex
	heads   map[string][]byte
}

func startRawUpstream(t *testing.T, answers []string) *rawUpstream {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	u := &rawUpstream{addr: ln.Addr().String(), answers: answers, heads: map[string][]byte{}}
	serveEach(t, ln, u.serve)
	return u
}

// serveEach runs serve on a goroutine of its own for each connection ln
// accepts, until the test ends (ln closed).
func serveEach(t *testing.T, ln net.Listener, serve func(net.Conn)) {
	t.Cleanup(func() { ln.Close() })
	go func() {
		for c, err := ln.Accept(); err == nil; c, err = ln.Accept() {
			go serve(c)
		}
	}()
}

func (u *rawUpstream) serve(c net.Conn) {
	defer c.Close()
	br := bufio.NewReader(c)
	for {
		_ = c.SetReadDeadline(time.Now().Add(10 * time.Second))
		var head []byte
		for {
			line, err := br.ReadSlice('\n')
			if err != nil {
				return
			}
			head = append(head, line...)
			if string(line) == "\r\n" {
				break
			}
		}
		req, err := http.ReadRequest(bufio.NewReader(bytes.NewReader(head)))
		if err != nil {
			return
		}
		u.mu.Lock()
		u.heads[req.URL.Query().Get("id")] = head
		u.mu.Unlock()
		if strings.Contains(req.URL.Path, "/slow") {
			time.Sleep(2 * time.Second)
		}
		n, _ := strconv.Atoi(req.URL.Path[strings.LastIndex(req.URL.Path, "/")+1:])
		ans := u.answers[n%len(u.answers)]
		if req.Method == http.MethodHead { // the heads only (an interim one, then the final one)
			final := strings.LastIndex(ans, "HTTP/1.")
			ans = ans[:final+strings.Index(ans[final:], "\r\n\r\n")+4]
		}
		if _, err := io.WriteString(c, ans); err != nil || strings.Contains(ans, "Connection: close") {
			return
		}
	}
}

func (u *rawUpstream) head(id string) []byte {
	u.mu.Lock()
	defer u.mu.Unlock()
	return u.heads[id]
}

const testDate = "Date: Fri, 27 Nov 2026 10:00:00 GMT\r\n"

// bytePathAnswers are the upstream answers the differential test sends;
// byteAnswers are the ones the byte path relays as bytes (the others go
// through the object path's reading).
var (
	bytePathAnswers = []string{
		"HTTP/1.1 200 OK\r\n" + testDate + "Content-Type: text/plain\r\ncontent-length: 5\r\nx-lower: 1\r\nX-Multi: a\r\nx-multi: b\r\n\r\nhello",
		"HTTP/1.1 203 Fine\r\n" + testDate + "content-type:text/plain\r\nContent-Length:  6 \r\nx-lower:  spaced  \r\n\r\nhello!",
		"HTTP/1.1 200 OK\r\n" + testDate + "Content-Length: 0\r\nx-lower: 1\r\n\r\n",
		"HTTP/1.1 200 OK\r\n" + testDate + "Content-Type: text/plain\r\nTransfer-Encoding: chunked\r\nx-lower: 1\r\n\r\n5\r\nhello\r\n0\r\n\r\n",
		"HTTP/1.1 200 OK\r\n" + testDate + "Content-Type: text/plain\r\nContent-Length: 5\r\nx-lower: 1\r\nConnection: close\r\n\r\nhello",
		"HTTP/1.1 204 No Content\r\n" + testDate + "x-lower: 1\r\n\r\n",
		"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 5\r\nx-lower: 1\r\n\r\nhello",
		"HTTP/1.1 200 OK\r\n" + testDate + "Content-Length: 14\r\nx-lower: 1\r\n\r\n<html>hi</html",
		"HTTP/1.1 200 OK\r\n" + testDate + "Content-Type: text/plain\r\nPragma: no-cache\r\nContent-Length: 5\r\nx-lower: 1\r\n\r\nhello",
		"HTTP/1.1 500 Internal Server Error\r\n" + testDate + "Content-Type: text/plain\r\nContent-Length: 5\r\nx-lower: 1\r\n\r\nhello",
		"HTTP/1.1 200 OK\r\n" + testDate + "Content-Type: text/plain\r\nKeep-Alive: timeout=5\r\nContent-Length: 5\r\nx-lower: 1\r\n\r\nhello",
		"HTTP/1.1 200 OK\r\n" + testDate + "Content-Type: text/plain\r\nX-Loadlab-Origin: fake\r\nContent-Length: 5\r\nx-lower: 1\r\n\r\nhello",
		"HTTP/1.1 200 OK\r\n" + testDate + "Content-Type: text/plain\r\nConnection: keep-alive\r\nContent-Length: 5\r\nx-lower: 1\r\n\r\nhello",
		"HTTP/1.1 200 OK\r\n" + testDate + "Content-Type: text/plain\r\nContent-Length: 5\r\nContent-Length: 5\r\nx-lower: 1\r\n\r\nhello",
		"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\n" + testDate + "Content-Type: text/plain\r\nContent-Length: 5\r\nx-lower: 1\r\n\r\nhello",
		"HTTP/1.0 200 OK\r\n" + testDate + "Content-Type: text/plain\r\nContent-Length: 5\r\nx-lower: 1\r\n\r\nhello",
	}
	byteAnswers = map[int]bool{0: true, 1: true, 2: true}
)

// bytePathRequests are the client request heads (after the request line)
// of the differential test.
var bytePathRequests = []string{
	"",
	"User-Agent: ua/1\r\nAccept: */*\r\n",
	"Connection: keep-alive, X-Drop\r\nX-Drop: 1\r\nKeep-Alive: 5\r\nTe: trailers\r\nProxy-Authorization: x\r\nX-Keep: 2\r\n",
	"X-Forwarded-For: 1.2.3.4\r\nX-Forwarded-For: 5.6.7.8, 9.9.9.9\r\n",
	"Connection: X-Forwarded-For\r\nX-Forwarded-For: 1.2.3.4\r\n",
	"Connection: User-Agent\r\nUser-Agent: gone\r\n",
	"Connection: close\r\nCookie: a=1\r\nCookie: b=2\r\n",
	"Proxy-Connection: keep-alive\r\nUpgrade-Insecure-Requests: 1\r\nx-lowercase: v\r\n",
}

// exchangeRaw sends one raw request to addr on a new connection and
// returns the answer as received (through the end of its body) and as
// read.
func exchangeRaw(t *testing.T, addr, method, target, fields string) ([]byte, *http.Response, []byte) {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := io.WriteString(c, method+" "+target+" HTTP/1.1\r\nHost: client.example\r\n"+fields+"\r\n"); err != nil {
		t.Fatal(err)
	}
	var raw bytes.Buffer
	resp, err := http.ReadResponse(bufio.NewReader(io.TeeReader(c, &raw)), &http.Request{Method: method})
	if err != nil {
		t.Fatalf("%s %s: %v", method, target, err)
	}
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s %s: body: %v", method, target, err)
	}
	return raw.Bytes(), resp, body
}

// TestBytePathSameAsObjectPath sends the same requests (GET and HEAD,
// with hop-by-hop fields, fields Connection names, prior
// X-Forwarded-For...) through a proxy on the byte path and one on the
// object path (Options.ObjectPath), to an upstream answering plain,
// chunked, close, 204, 500, HTTP/1.0, interim, Pragma, ... answers: the
// upstream receives the same request (through net/http's reading) and the
// client the same answer, and the byte path relays exactly the plain
// answers as bytes (the field names as the upstream spelled them). Both
// on a plain route and on one that caches and falls back (whose answers
// the byte path reads as responses), and with a target whose path has an
// escape (which the byte path leaves to the object path).
func TestBytePathSameAsObjectPath(t *testing.T) {
	up := startRawUpstream(t, bytePathAnswers)
	const yaml = `
pools:
  default: {size: 2}
routes:
  - {path: /cached/*, upstream: ORIGIN/base, name: cached, cache: true, fallback: true}
  - {path: /*, upstream: ORIGIN/base, name: all}
`
	_, fb := startProxy(t, yaml, "http://"+up.addr)
	_, fo := startProxyOpts(t, yaml, "http://"+up.addr, Options{ObjectPath: true})
	id := 0
	for _, form := range []struct {
		target string // with the answer's index and the request's id
		relays bool   // the byte path relays plain answers as bytes
	}{
		{"/a/%d?id=%d&q=x%%20y", true},
		{"/cached/a/%d?id=%d", false},
		{"/a%%2Cb/%d?id=%d", false},
	} {
		for _, method := range []string{"GET", "HEAD"} {
			for ai := range bytePathAnswers {
				for ri, fields := range bytePathRequests {
					var heads [2]*http.Request
					var answers [2]*http.Response
					var bodies [2][]byte
					for k, f := range []*front{fb, fo} {
						id++
						target := fmt.Sprintf(form.target, ai, id)
						raw, resp, body := exchangeRaw(t, strings.TrimPrefix(f.URL, "http://"), method, target, fields)
						relayed := bytes.Contains(raw, []byte("\r\nx-lower:"))
						if want := k == 0 && form.relays && method == "GET" && byteAnswers[ai]; relayed != want {
							t.Errorf("%s %s answer %d request %d, byte path %v: relayed as bytes %v, want %v:\n%s", method, form.target, ai, ri, k == 0, relayed, want, raw)
						}
						h := up.head(strconv.Itoa(id))
						req, err := http.ReadRequest(bufio.NewReader(bytes.NewReader(h)))
						if err != nil {
							t.Fatalf("upstream head %q: %v", h, err)
						}
						req.URL.RawQuery = strings.Replace(req.URL.RawQuery, "id="+strconv.Itoa(id), "", 1)
						req.RequestURI = ""
						heads[k], answers[k], bodies[k] = req, resp, body
					}
					name := fmt.Sprintf("%s %s answer %d request %d", method, form.target, ai, ri)
					b, o := heads[0], heads[1]
					if b.Method != o.Method || b.URL.String() != o.URL.String() || b.Host != o.Host || !reflect.DeepEqual(b.Header, o.Header) {
						t.Errorf("%s: upstream got\n%s %s %s %v (byte path)\n%s %s %s %v (object path)", name, b.Method, b.URL, b.Host, b.Header, o.Method, o.URL, o.Host, o.Header)
					}
					ba, oa := answers[0], answers[1]
					if !strings.Contains(bytePathAnswers[ai], "Date:") { // the proxy's own, maybe a second apart
						ba.Header.Del("Date")
						oa.Header.Del("Date")
					}
					if ba.Status != oa.Status || ba.Proto != oa.Proto || ba.ContentLength != oa.ContentLength || ba.Close != oa.Close ||
						!reflect.DeepEqual(ba.Header, oa.Header) || !bytes.Equal(bodies[0], bodies[1]) {
						t.Errorf("%s: client got\n%s %v %q (byte path)\n%s %v %q (object path)", name, ba.Status, ba.Header, bodies[0], oa.Status, oa.Header, bodies[1])
					}
				}
			}
		}
	}
}

// TestBytePathTimeoutAndClientGone: on the byte path an upstream slower
// than the request timeout is answered 504, and a client that leaves
// while the upstream is slow is counted 499; the worker comes back both
// times.
func TestBytePathTimeoutAndClientGone(t *testing.T) {
	up := startRawUpstream(t, bytePathAnswers)
	p, f := startProxy(t, `
pools:
  default: {size: 1}
routes:
  - {path: /fast*, upstream: ORIGIN, name: fast, request_timeout: 5s}
  - {path: /*, upstream: ORIGIN, name: slow, request_timeout: 300ms}
`, "http://"+up.addr)
	addr := strings.TrimPrefix(f.URL, "http://")
	start := time.Now()
	_, resp, body := exchangeRaw(t, addr, "GET", "/slow/a/0?id=t", "")
	if took := time.Since(start); resp.StatusCode != http.StatusGatewayTimeout || resp.Header.Get(HeaderOrigin) != OriginUpstreamError || took > 1500*time.Millisecond {
		t.Errorf("slow upstream: %s %q after %v, want 504 from upstream_error at the 300ms timeout", resp.Status, body, took)
	}
	idle(t, p)

	// The client leaves while the upstream takes 2 s (request timeout 5 s).
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.WriteString(c, "GET /fast/slow/a/0?id=g HTTP/1.1\r\nHost: x\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	testwait.Eventually(t, 5*time.Second, "the request to reach the upstream", func() bool { return up.head("g") != nil })
	c.Close()
	gone := func() uint64 {
		for _, rs := range p.Status().Routes {
			if rs.Name == "fast" {
				for _, rc := range rs.Responses {
					if rc.Status == 499 && rc.Origin == OriginClientGone {
						return rc.Count
					}
				}
			}
		}
		return 0
	}
	testwait.Eventually(t, 1500*time.Millisecond, "the client's leaving counted 499 (before the upstream's answer at 2 s)", func() bool { return gone() == 1 })
	idle(t, p)
	// The pool's one worker serves the next request.
	if _, resp, body := exchangeRaw(t, addr, "GET", "/fast/a/0?id=n", ""); resp.StatusCode != 200 || string(body) != "hello" {
		t.Errorf("after: %s %q", resp.Status, body)
	}
}
