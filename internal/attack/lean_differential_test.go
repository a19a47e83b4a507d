package attack

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/loadlab/loadlab/internal/httpcases"
	"github.com/loadlab/loadlab/internal/results"
	"github.com/loadlab/loadlab/internal/targets"
)

// rawServer answers every connection on loopback with the bytes its next
// answer is set to, once the request head is read, then closes it.
type rawServer struct {
	ln   net.Listener
	resp chan string
}

func newRawServer(t testing.TB) *rawServer {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &rawServer{ln: ln, resp: make(chan string, 1)}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			_ = c.SetDeadline(time.Now().Add(5 * time.Second))
			br := bufio.NewReader(c)
			for {
				l, err := br.ReadSlice('\n')
				if err != nil || len(l) <= 2 {
					break
				}
			}
			select {
			case r := <-s.resp:
				_, _ = io.WriteString(c, r)
			default:
			}
			c.Close()
		}
	}()
	return s
}

// outcome is what a client made of an answer.
type outcome struct {
	ok    bool // status and body read without error
	code  int
	body  string
	close bool // the connection is not reused
}

func (o outcome) String() string {
	if !o.ok {
		return "refused"
	}
	return fmt.Sprintf("%d body %q close %v", o.code, o.body, o.close)
}

// leanOutcome is what the lean client makes of raw, answering a method
// request.
func leanOutcome(t testing.TB, s *rawServer, method, raw string) outcome {
	opts := DefaultOptions()
	opts.MaxBody, opts.Redirects, opts.Timeout = -1, -1, 5*time.Second
	a := &Attacker{opts: opts}
	a.lean = newLeanClient(&a.opts)
	w := &worker{a: a, rng: targets.NewRand(1), lean: a.lean.newWorker()}
	tr, err := targets.Static(method, "http://"+s.ln.Addr().String()+"/")
	if err != nil {
		t.Fatal(err)
	}
	tg, _ := tr.Next()
	s.resp <- raw
	c, err := a.lean.get(context.Background(), s.ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer a.lean.discard(c)
	_ = c.c.SetDeadline(time.Now().Add(5 * time.Second))
	var r results.Result
	_, err = w.lean.exchange(w, c, tg, []byte(method+" / HTTP/1.1\r\nHost: x\r\n\r\n"), &r)
	if err != nil && err != errCloseAfter {
		return outcome{}
	}
	return outcome{ok: true, code: int(r.Code), body: string(r.Body), close: err == errCloseAfter}
}

// stdOutcome is what net/http's client makes of raw.
func stdOutcome(t testing.TB, s *rawServer, method, raw string) outcome {
	tr := &http.Transport{DisableCompression: true, Proxy: nil}
	defer tr.CloseIdleConnections()
	req, err := http.NewRequest(method, "http://"+s.ln.Addr().String()+"/", nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	s.resp <- raw
	resp, err := tr.RoundTrip(req.WithContext(ctx))
	if err != nil {
		return outcome{}
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		return outcome{}
	}
	return outcome{ok: true, code: resp.StatusCode, body: string(body), close: resp.Close}
}

// The lean client must read every answer as net/http's does, or differ
// as docs/http1.md says.
func TestLeanResponseAgreesWithNetHTTP(t *testing.T) {
	s := newRawServer(t)
	differ := map[string]string{}
	for _, c := range httpcases.Responses {
		l, std := leanOutcome(t, s, c.Method, c.Raw), stdOutcome(t, s, c.Method, c.Raw)
		if l != std {
			differ[c.Name] = fmt.Sprintf("lean client: %v\nnet/http: %v", l, std)
		}
	}
	httpcases.Hold(t, httpcases.AttackResponses, differ)
}
