package serve

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"runtime"
	"strings"
	"testing"
	"time"

	"golang.org/x/net/http2"
	"golang.org/x/net/http2/hpack"

	"github.com/loadlab/loadlab/internal/testwait"
)

// who answers "METHOD PATH BODY PROTO SERVER", SERVER being std when
// net/http's server ran the handler and lean otherwise.
var who = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
	b, _ := io.ReadAll(r.Body)
	kind := "lean"
	if r.Context().Value(http.ServerContextKey) != nil {
		kind = "std"
	}
	_, _ = io.WriteString(w, r.Method+" "+r.URL.Path+" "+string(b)+" "+r.Proto+" "+kind)
})

// dialRaw opens a connection to the server at u (http://host:port).
func dialRaw(t *testing.T, u string) (net.Conn, *bufio.Reader) {
	t.Helper()
	c, err := net.Dial("tcp", strings.TrimPrefix(u, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	_ = c.SetDeadline(time.Now().Add(5 * time.Second))
	return c, bufio.NewReader(c)
}

// readAnswer reads one HTTP/1.1 answer and returns "STATUS BODY".
func readAnswer(t *testing.T, br *bufio.Reader) string {
	t.Helper()
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatalf("reading an answer: %v", err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("reading a body: %v", err)
	}
	return resp.Status[:3] + " " + string(b)
}

// Connections the lean server does not serve itself go on with net/http's
// server, which gets the bytes already read; the connection stays usable.
func TestHandoff(t *testing.T) {
	const get = "GET /a HTTP/1.1\r\nHost: x\r\n\r\n"
	const chunked = "POST /c HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n2\r\nde\r\n0\r\n\r\n"
	for _, c := range []struct {
		name string
		in   []string // written one after the other, each after the answers before it
		want []string // answers, "STATUS BODY"
	}{
		{"chunked POST", []string{chunked}, []string{"200 POST /c abcde HTTP/1.1 std"}},
		{"chunked then GET", []string{chunked, get}, []string{"200 POST /c abcde HTTP/1.1 std", "200 GET /a  HTTP/1.1 std"}},
		{"keep-alive: 2nd request needs the handoff", []string{get, chunked, get},
			[]string{"200 GET /a  HTTP/1.1 lean", "200 POST /c abcde HTTP/1.1 std", "200 GET /a  HTTP/1.1 std"}},
		{"pipelined: 2nd request needs the handoff", []string{get + chunked + get},
			[]string{"200 GET /a  HTTP/1.1 lean", "200 POST /c abcde HTTP/1.1 std", "200 GET /a  HTTP/1.1 std"}},
		{"Upgrade without h2c ignored", []string{"GET /u HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\r\n"},
			[]string{"200 GET /u  HTTP/1.1 std"}},
		{"head split in reads", []string{"POST /s HTTP/1.1\r\nHost: x\r\nTransfer-", "Encoding: chunked\r\n\r\n1\r\nz\r\n0\r\n\r\n"},
			[]string{"200 POST /s z HTTP/1.1 std"}},
		{"bad target", []string{"GET /%zz HTTP/1.1\r\nHost: x\r\n\r\n"}, []string{"400 400 Bad Request"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			u := start(t, Config{}, who)
			conn, br := dialRaw(t, u)
			var got []string
			written := ""
			for _, in := range c.in {
				if _, err := io.WriteString(conn, in); err != nil {
					t.Fatal(err)
				}
				written += in
				if strings.HasSuffix(in, "Transfer-") {
					serverHasRead(t, conn) // the rest comes in another read
					continue
				}
				for n := strings.Count(written, " HTTP/1.1\r\n"); n > 0; n-- {
					got = append(got, readAnswer(t, br))
				}
				written = ""
			}
			if strings.Join(got, "\n") != strings.Join(c.want, "\n") {
				t.Errorf("answers\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(c.want, "\n"))
			}
		})
	}
}

// Expect: 100-continue gets the interim answer before the body is sent.
func TestHandoffExpectContinue(t *testing.T) {
	u := start(t, Config{}, who)
	conn, br := dialRaw(t, u)
	_, _ = io.WriteString(conn, "GET /a HTTP/1.1\r\nHost: x\r\n\r\n")
	if got := readAnswer(t, br); got != "200 GET /a  HTTP/1.1 lean" {
		t.Fatalf("first answer %q", got)
	}
	_, _ = io.WriteString(conn, "POST /e HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: 4\r\n\r\n")
	line, err := br.ReadString('\n')
	if err != nil || line != "HTTP/1.1 100 Continue\r\n" {
		t.Fatalf("want 100 Continue, got %q %v", line, err)
	}
	if blank, _ := br.ReadString('\n'); blank != "\r\n" {
		t.Fatalf("after 100 Continue: %q", blank)
	}
	_, _ = io.WriteString(conn, "body")
	if got := readAnswer(t, br); got != "200 POST /e body HTTP/1.1 std" {
		t.Errorf("answer %q", got)
	}
}

// h2cTransport speaks HTTP/2 with prior knowledge over plain TCP.
func h2cTransport() *http.Transport {
	p := new(http.Protocols)
	p.SetUnencryptedHTTP2(true)
	return &http.Transport{Protocols: p}
}

// With h2c, the HTTP/2 preface is handed over: prior knowledge works, over
// one connection for several requests, and HTTP/1.1 stays lean.
func TestHandoffH2CPriorKnowledge(t *testing.T) {
	u := start(t, Config{H2C: true}, who)
	tr := h2cTransport()
	defer tr.CloseIdleConnections()
	c := &http.Client{Transport: tr, Timeout: 5 * time.Second}
	for i, want := range []string{"GET /p  HTTP/2.0 std", "POST /p xy HTTP/2.0 std"} {
		var resp *http.Response
		var err error
		if i == 0 {
			resp, err = c.Get(u + "/p")
		} else {
			resp, err = c.Post(u+"/p", "text/plain", io.MultiReader(strings.NewReader("x"), strings.NewReader("y")))
		}
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.ProtoMajor != 2 || string(b) != want {
			t.Errorf("request %d: %s %q, want HTTP/2 %q", i, resp.Proto, b, want)
		}
	}
	if got, _ := fetch(t, http.DefaultClient, u+"/h1"); got != "GET /h1  HTTP/1.1 lean" {
		t.Errorf("HTTP/1.1 on an h2c server: %q", got)
	}
}

// With h2c, "Upgrade: h2c" switches the connection to HTTP/2: 101, then the
// answer to the upgrading request on stream 1 (the request itself came as
// HTTP/1.1, which its Proto keeps).
func TestHandoffH2CUpgrade(t *testing.T) {
	for _, k := range kinds {
		for _, c := range []struct {
			name, first string
			want        []string // the first answer's, then stream 1's
		}{
			{"upgrade first", "", []string{"200 GET /up  HTTP/1.1 std"}},
			{"upgrade on a kept-alive connection", "GET /a HTTP/1.1\r\nHost: x\r\n\r\n", []string{"200 GET /a  HTTP/1.1 lean", "200 GET /up  HTTP/1.1 std"}},
		} {
			t.Run(k.name+"/"+c.name, func(t *testing.T) {
				cfg := k.cfg
				cfg.H2C = true
				u := start(t, cfg, who)
				conn, br := dialRaw(t, u)
				var got []string
				if c.first != "" {
					_, _ = io.WriteString(conn, c.first)
					got = append(got, readAnswer(t, br))
				}
				_, _ = io.WriteString(conn, "GET /up HTTP/1.1\r\nHost: x\r\nConnection: Upgrade, HTTP2-Settings\r\nUpgrade: h2c\r\nHTTP2-Settings: AAMAAABkAAQAAP__\r\n\r\n")
				resp, err := http.ReadResponse(br, nil)
				if err != nil || resp.StatusCode != http.StatusSwitchingProtocols {
					t.Fatalf("want 101, got %v %v", resp, err)
				}
				_, _ = io.WriteString(conn, http2.ClientPreface)
				fr := http2.NewFramer(conn, br)
				if err := fr.WriteSettings(); err != nil {
					t.Fatal(err)
				}
				got = append(got, readStream1(t, fr))
				want := strings.Join(c.want, "\n")
				if cfg.Std {
					want = strings.ReplaceAll(want, " lean", " std")
				}
				if strings.Join(got, "\n") != want {
					t.Errorf("answers\n%s\nwant\n%s", strings.Join(got, "\n"), want)
				}
			})
		}
	}
}

// readStream1 reads frames until stream 1 ends; it returns "STATUS BODY".
func readStream1(t *testing.T, fr *http2.Framer) string {
	t.Helper()
	var status string
	var body bytes.Buffer
	dec := hpack.NewDecoder(4096, func(f hpack.HeaderField) {
		if f.Name == ":status" {
			status = f.Value
		}
	})
	for {
		f, err := fr.ReadFrame()
		if err != nil {
			t.Fatalf("reading frames: %v", err)
		}
		switch f := f.(type) {
		case *http2.SettingsFrame:
			if !f.IsAck() {
				_ = fr.WriteSettingsAck()
			}
		case *http2.HeadersFrame:
			if _, err := dec.Write(f.HeaderBlockFragment()); err != nil {
				t.Fatal(err)
			}
			if f.StreamID == 1 && f.StreamEnded() {
				return status + " " + body.String()
			}
		case *http2.DataFrame:
			if f.StreamID == 1 {
				body.Write(f.Data())
				if f.StreamEnded() {
					return status + " " + body.String()
				}
			}
		case *http2.GoAwayFrame:
			t.Fatalf("GOAWAY %v", f.ErrCode)
		}
	}
}

// Shutting down ends the connections handed to net/http's server (idle
// keep-alive, HTTP/2 by prior knowledge and by upgrade) and every goroutine
// the server started.
func TestHandoffShutdownNoLeak(t *testing.T) {
	before := runtime.NumGoroutine()
	ctx, cancel := context.WithCancel(context.Background())
	urlc := make(chan string, 1)
	done := make(chan error, 1)
	go func() {
		done <- Run(ctx, Config{H2C: true, ShutdownTimeout: 2 * time.Second}, who, func(u string) { urlc <- u }, nil)
	}()
	u := <-urlc

	// An idle HTTP/1.1 connection after a handed-over chunked POST.
	conn, br := dialRaw(t, u)
	_, _ = io.WriteString(conn, "POST /c HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n1\r\na\r\n0\r\n\r\n")
	if got := readAnswer(t, br); got != "200 POST /c a HTTP/1.1 std" {
		t.Fatalf("chunked: %q", got)
	}
	// An HTTP/2 connection by prior knowledge, left open.
	tr := h2cTransport()
	resp, err := (&http.Client{Transport: tr, Timeout: 5 * time.Second}).Get(u + "/p")
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	// An upgraded connection, left open.
	up, ubr := dialRaw(t, u)
	_, _ = io.WriteString(up, "GET /up HTTP/1.1\r\nHost: x\r\nConnection: Upgrade, HTTP2-Settings\r\nUpgrade: h2c\r\nHTTP2-Settings: \r\n\r\n")
	if resp, err := http.ReadResponse(ubr, nil); err != nil || resp.StatusCode != http.StatusSwitchingProtocols {
		t.Fatalf("upgrade: %v %v", resp, err)
	}
	_, _ = io.WriteString(up, http2.ClientPreface)
	fr := http2.NewFramer(up, ubr)
	_ = fr.WriteSettings()
	if got := readStream1(t, fr); got != "200 GET /up  HTTP/1.1 std" {
		t.Fatalf("upgrade: %q", got)
	}

	start := time.Now()
	cancel()
	if err := <-done; err != nil || time.Since(start) > 3*time.Second {
		t.Fatalf("Run: %v after %v", err, time.Since(start))
	}
	// The server closed its ends of every connection.
	for name, br := range map[string]*bufio.Reader{"HTTP/1.1": br, "upgraded": ubr} {
		if _, err := io.Copy(io.Discard, br); err != nil {
			t.Errorf("%s connection not closed by the server: %v", name, err)
		}
	}
	tr.CloseIdleConnections()
	conn.Close()
	up.Close()
	testwait.Until(10*time.Second, func() bool { return runtime.NumGoroutine() <= before })
	if n := runtime.NumGoroutine(); n > before {
		buf := make([]byte, 1<<16)
		t.Errorf("%d goroutines after shutdown, %d before:\n%s", n, before, buf[:runtime.Stack(buf, true)])
	}
}
