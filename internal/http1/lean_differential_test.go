package http1

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"regexp"
	"testing"
	"time"

	"github.com/loadlab/loadlab/internal/httpcases"
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
	l, w := testLean(Options{MaxBody: -1, Redirects: -1, Timeout: 5 * time.Second})
	tr, err := targets.Static(method, "http://"+s.ln.Addr().String()+"/")
	if err != nil {
		t.Fatal(err)
	}
	tg, _ := tr.Next()
	s.resp <- raw
	c, err := l.get(context.Background(), s.ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer l.discard(c)
	_ = c.c.SetDeadline(time.Now().Add(5 * time.Second))
	var r Exchange
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
	// A switched connection (101) is never reused, whatever resp.Close.
	return outcome{ok: true, code: resp.StatusCode, body: string(body), close: resp.Close || resp.StatusCode == http.StatusSwitchingProtocols}
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

// FuzzLeanResponseAgainstNetHTTP gives arbitrary answers to the lean
// client and to net/http's: they must read them alike, but for the
// documented differences (docs/http1.md), recognised by documentedDiff.
func FuzzLeanResponseAgainstNetHTTP(f *testing.F) {
	for _, c := range httpcases.Responses {
		if len(c.Raw) < 4<<10 {
			f.Add(c.Method == "HEAD", []byte(c.Raw))
		}
	}
	s := newRawServer(f)
	f.Fuzz(func(t *testing.T, head bool, raw []byte) {
		method := "GET"
		if head {
			method = "HEAD"
		}
		l, std := leanOutcome(t, s, method, string(raw)), stdOutcome(t, s, method, string(raw))
		if l != std && !documentedDiff(raw, l, std) {
			t.Fatalf("%s %q:\nlean client: %v\nnet/http: %v", method, raw, l, std)
		}
	})
}

var (
	// finalStatus is a status line the lean client takes: HTTP/1.x and a
	// code from 100 (the line and code net/http may take otherwise).
	finalStatus = regexp.MustCompile(`^HTTP/1\.[0-9] [1-9][0-9][0-9]( |\r?\n)`)
	// spacedName is a field name holding or followed by whitespace.
	spacedName = regexp.MustCompile(`(?m)^[^ \t\r\n:][^:\r\n]*[ \t][^:\r\n]*:`)
	// foldedUsed is a field the lean client uses, folded.
	foldedUsed = regexp.MustCompile(`(?mi)^(content-length|transfer-encoding|connection|upgrade|content-encoding):[^\n]*\n[ \t]`)
)

// documentedDiff reports whether the lean client's reading l and
// net/http's std of raw differ as docs/http1.md says they may.
func documentedDiff(raw []byte, l, std outcome) bool {
	if !l.ok && std.ok { // the lean client refuses what net/http takes
		return !statusLinesOK(raw) || spacedName.Match(raw) || foldedUsed.Match(raw)
	}
	// http10-keep-alive: the lean client closes.
	return l.ok && std.ok && l.code == std.code && l.body == std.body && l.close && !std.close && bytes.HasPrefix(raw, []byte("HTTP/1.0"))
}

// statusLinesOK reports whether every status line the client reads in
// raw (1xx answers, then the final one) is one the lean client takes.
func statusLinesOK(raw []byte) bool {
	for {
		if !finalStatus.Match(raw) {
			return false
		}
		if !bytes.HasPrefix(raw[9:], []byte("1")) || bytes.HasPrefix(raw[9:], []byte("101")) {
			return true
		}
		end := bytes.Index(raw, []byte("\n\r\n"))
		if e := bytes.Index(raw, []byte("\n\n")); e >= 0 && (end < 0 || e < end) {
			end = e - 1
		}
		if end < 0 {
			return true
		}
		raw = raw[end+3:]
	}
}
