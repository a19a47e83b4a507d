package proxy

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// echoOrigin answers every request with its method and body.
func echoOrigin(t *testing.T) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		fmt.Fprintf(w, "%s %s", r.Method, b)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// slowConn dials addr and writes head, then body one byte every gap (only
// the first stallAfter bytes when it is not negative); it returns the
// status line and body of the answer (or the error), or "sent" without
// reading one when stallAfter is -2.
func slowConn(addr, head, body string, gap time.Duration, stallAfter int) (string, error) {
	c, err := net.DialTimeout("tcp", addr, 2*time.Second)
	if err != nil {
		return "", err
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(30 * time.Second)) // bounds the test
	if _, err := io.WriteString(c, head); err != nil {
		return "", err
	}
	for i := 0; i < len(body); i++ {
		if i == stallAfter {
			break // send nothing more: wait for the answer
		}
		time.Sleep(gap)
		if _, err := c.Write([]byte{body[i]}); err != nil {
			return "", err
		}
	}
	if stallAfter == -2 {
		return "sent", nil
	}
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.Status + " " + string(b), nil
}

// TestSlowClientsDoNotStarveThePool: beside 16 clients trickling POST
// bodies at a byte every 150 ms, 8 Slowloris heads and 8 clients that
// stall half-way through their body, every normal GET through a pool of
// 4 + 4 (checkout timeout 1 s) is answered by the upstream: request bodies
// are read whole before a worker is checked out. The trickled bodies
// arrive whole, the stalled ones get 408 after the client body timeout, a
// body over the bound gets 413.
func TestSlowClientsDoNotStarveThePool(t *testing.T) {
	origin := echoOrigin(t)
	p, f := startProxyOpts(t, `pools: {default: {size: 4, overflow: 4, checkout_timeout: 1s}}
routes: [{path: /*, upstream: "ORIGIN", request_timeout: 5s}]`, origin.URL, Options{ClientBodyTimeout: time.Second, MaxRequestBody: 4096})
	addr := strings.TrimPrefix(f.URL, "http://")

	const body = "0123456789abcdefghij" // 20 bytes: 3 s at a byte per 150 ms
	var wg sync.WaitGroup
	type answer struct {
		kind string
		got  string
		err  error
	}
	answers := make(chan answer, 64)
	for i := 0; i < 16; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got, err := slowConn(addr, fmt.Sprintf("POST /up HTTP/1.1\r\nHost: a\r\nContent-Length: %d\r\n\r\n", len(body)), body, 150*time.Millisecond, -1)
			answers <- answer{"trickle", got, err}
		}()
	}
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got, err := slowConn(addr, fmt.Sprintf("POST /up HTTP/1.1\r\nHost: a\r\nContent-Length: %d\r\n\r\n", len(body)), body, 100*time.Millisecond, 10)
			answers <- answer{"stall", got, err}
		}()
	}
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			// a head sent a byte every 200 ms for 3 s, never finished
			got, err := slowConn(addr, "GET /loris HTTP/1.1\r\nHost: a\r\n", strings.Repeat("X", 15), 200*time.Millisecond, -2)
			answers <- answer{"loris", got, err}
		}()
	}

	time.Sleep(300 * time.Millisecond) // the slow clients are all connected
	client := newClient(t)
	normal := pace(t, client, f.URL+"/news", 50, 120) // 2.4 s of GETs
	for _, r := range normal {
		if r.err != nil || r.status != 200 || r.origin != OriginUpstream {
			t.Errorf("GET %d at %v: status %d origin %q err %v", r.i, r.sent, r.status, r.origin, r.err)
		}
	}

	resp, err := http.Post(f.URL+"/big", "text/plain", strings.NewReader(strings.Repeat("b", 4097)))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusRequestEntityTooLarge || resp.Header.Get(HeaderOrigin) != OriginClientBody {
		t.Errorf("a 4097-byte body with a 4096-byte bound: %s (%s), want 413", resp.Status, resp.Header.Get(HeaderOrigin))
	}

	wg.Wait()
	close(answers)
	counts := map[string]int{}
	for a := range answers {
		switch a.kind {
		case "trickle":
			if a.err != nil || a.got != "200 OK POST "+body {
				t.Errorf("trickled body: %q, %v", a.got, a.err)
			}
		case "stall":
			if a.err != nil || !strings.HasPrefix(a.got, "408 ") {
				t.Errorf("stalled body: %q, %v, want 408", a.got, a.err)
			}
		case "loris":
			if a.err != nil {
				t.Errorf("slow head: %v", a.err)
			}
		}
		counts[a.kind]++
	}
	st := p.Status()
	if st.BodyRefused.Slow != 8 || st.BodyRefused.Large != 1 {
		t.Errorf("body refused %+v, want 8 slow and 1 large", st.BodyRefused)
	}
	t.Logf("%d normal GETs all answered by the upstream beside %v slow clients; status %+v", len(normal), counts, st.BodyRefused)
}
