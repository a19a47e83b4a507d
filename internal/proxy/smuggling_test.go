package proxy

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/textproto"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/loadlab/loadlab/internal/httpcases"
)

// seen is a request as a server understood it: what must reach the
// origin, framed alike, for every request the proxy takes.
type seen struct {
	method, uri, body string
}

// recordingOrigin is an origin on a plain TCP listener that reads the
// proxy's requests itself, strictly: at most one Content-Length, never
// with Transfer-Encoding, which may only be "chunked", and nothing on a
// connection that is not a whole request. It answers each "ok".
type recordingOrigin struct {
	ln   net.Listener
	mu   sync.Mutex
	reqs []seen
	bad  []string // framing faults, with the bytes read
}

func newRecordingOrigin(t *testing.T) *recordingOrigin {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	o := &recordingOrigin{ln: ln}
	serveEach(t, ln, o.serve)
	return o
}

func (o *recordingOrigin) serve(c net.Conn) {
	defer c.Close()
	var raw strings.Builder
	br := bufio.NewReader(io.TeeReader(c, &raw))
	for {
		s, err := readStrict(br)
		if errors.Is(err, io.EOF) && raw.Len() == 0 || errors.Is(err, errCleanEnd) {
			return
		}
		if err != nil {
			// A request cut short, then the connection closed: the
			// proxy gave up on it; the origin acts on nothing.
			if !errors.Is(err, net.ErrClosed) && !errors.Is(err, io.ErrUnexpectedEOF) {
				o.mu.Lock()
				o.bad = append(o.bad, fmt.Sprintf("%v in %q", err, raw.String()))
				o.mu.Unlock()
			}
			return
		}
		o.mu.Lock()
		o.reqs = append(o.reqs, s)
		o.mu.Unlock()
		raw.Reset()
		if _, err := io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"); err != nil {
			return
		}
	}
}

var errCleanEnd = errors.New("connection closed between requests")

// readStrict reads one request, refusing any framing two parsers could
// read differently.
func readStrict(br *bufio.Reader) (seen, error) {
	if _, err := br.Peek(1); err != nil {
		return seen{}, errCleanEnd
	}
	tp := textproto.NewReader(br)
	line, err := tp.ReadLine()
	if err != nil {
		return seen{}, err
	}
	method, rest, _ := strings.Cut(line, " ")
	uri, proto, _ := strings.Cut(rest, " ")
	if proto != "HTTP/1.1" {
		return seen{}, fmt.Errorf("request line %q", line)
	}
	h, err := tp.ReadMIMEHeader()
	if err != nil {
		return seen{}, err
	}
	cl, te := h["Content-Length"], h["Transfer-Encoding"]
	var body []byte
	switch {
	case len(cl) > 1 || (len(cl) > 0 && len(te) > 0):
		return seen{}, fmt.Errorf("ambiguous framing: Content-Length %q, Transfer-Encoding %q", cl, te)
	case len(te) > 0:
		if len(te) != 1 || te[0] != "chunked" {
			return seen{}, fmt.Errorf("Transfer-Encoding %q", te)
		}
		body, err = io.ReadAll(httputil.NewChunkedReader(br))
		if err == nil {
			_, err = tp.ReadMIMEHeader() // trailers
		}
	case len(cl) == 1:
		var n int
		if _, err := fmt.Sscanf(cl[0], "%d", &n); err != nil || fmt.Sprint(n) != cl[0] {
			return seen{}, fmt.Errorf("Content-Length %q", cl[0])
		}
		body = make([]byte, n)
		_, err = io.ReadFull(br, body)
	}
	return seen{method, uri, string(body)}, err
}

// reference records what net/http's server takes from a raw stream.
type reference struct {
	mu   sync.Mutex
	reqs []seen
}

func (r *reference) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	b, err := io.ReadAll(req.Body)
	if err != nil {
		w.Header().Set("Connection", "close")
		http.Error(w, "body", http.StatusBadRequest)
		return
	}
	r.mu.Lock()
	r.reqs = append(r.reqs, seen{req.Method, req.URL.RequestURI(), string(b)})
	r.mu.Unlock()
	_, _ = io.WriteString(w, "ok")
}

func (r *reference) take() []seen {
	r.mu.Lock()
	defer r.mu.Unlock()
	s := r.reqs
	r.reqs = nil
	return s
}

func (o *recordingOrigin) take() ([]seen, []string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	s, b := o.reqs, o.bad
	o.reqs, o.bad = nil, nil
	return s, b
}

// End to end through the proxy: every request stream of the shared
// cases (CL.TE, TE.CL, TE.TE and the rest) reaches the origin as the
// requests net/http's server reads from it, each framed so that no
// parser can read it differently; a stream net/http refuses is answered
// 400 (431, 501, 505: net/http's answers), after which the connection is
// closed.
func TestProxyFramesAsNetHTTP(t *testing.T) {
	origin := newRecordingOrigin(t)
	_, front := startProxy(t, `
pools:
  p: {size: 2, overflow: 0, checkout_timeout: 5s}
routes:
  - {path: "/*", upstream: ORIGIN, pool: p, request_timeout: 5s}
`, "http://"+origin.ln.Addr().String())
	ref := &reference{}
	std := httptest.NewUnstartedServer(ref)
	std.Config.MaxHeaderBytes = MaxHeaderBytes
	std.Start()
	t.Cleanup(std.Close)
	proxyAddr := strings.TrimPrefix(front.URL, "http://")
	stdAddr := strings.TrimPrefix(std.URL, "http://")
	differ := map[string]string{}
	for _, c := range httpcases.Requests {
		if only := os.Getenv("CASE"); only != "" && c.Name != only {
			continue
		}
		want, err := httpcases.ExchangeOpen(stdAddr, c.Raw+httpcases.Closing, 3*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		wantReqs := ref.take()
		got, err := httpcases.ExchangeOpen(proxyAddr, c.Raw+httpcases.Closing, 3*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		reached, bad := origin.take()
		for _, b := range bad {
			t.Errorf("case %s: the origin received %s", c.Name, b)
		}
		if fmt.Sprint(reached) != fmt.Sprint(wantReqs) || statuses(got) != statuses(want) || got.End != want.End {
			differ[c.Name] = fmt.Sprintf("net/http's server took %v and answered %s, %s\nthrough the proxy the origin got %v, the client %s, %s",
				wantReqs, statuses(want), want.End, reached, statuses(got), got.End)
		}
		// A stream net/http refuses is refused alike through the proxy
		// (the statuses above): with 400 (or 431, 501, 505), last.
		for i, a := range want.Answers {
			if a.Status >= 400 && (a.Status != 400 && a.Status != 431 && a.Status != 501 && a.Status != 505 || i != len(want.Answers)-1 || want.End != "closed") {
				t.Errorf("case %s: refused with %d (answer %d of %d, %s): a refused request gets 400 (431, 501, 505) and the connection closed", c.Name, a.Status, i+1, len(want.Answers), want.End)
			}
		}
	}
	httpcases.Hold(t, httpcases.ProxyEndToEnd, differ)
}

func statuses(c httpcases.Conversation) string {
	s := make([]string, len(c.Answers))
	for i, a := range c.Answers {
		s[i] = fmt.Sprint(a.Status)
	}
	return "[" + strings.Join(s, " ") + "]"
}
