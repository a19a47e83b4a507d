package pool

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

func newTestWorker(t *testing.T) (*Worker, *ConnCounter) {
	d := &net.Dialer{}
	cc := &ConnCounter{Dial: d.DialContext}
	w := &Worker{dial: cc.DialContext}
	t.Cleanup(w.close)
	return w, cc
}

func do(t *testing.T, w *Worker, ctx context.Context, url string) (string, error) {
	req, _ := http.NewRequestWithContext(ctx, "GET", url, nil)
	resp, err := w.RoundTrip(req)
	if err != nil {
		return "", err
	}
	b, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	return string(b), err
}

func TestWorkerConnectionLifecycle(t *testing.T) {
	rest := make(chan struct{}) // the rest of /slow-body: sent once the test is over
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/close":
			w.Header().Set("Connection", "close")
		case "/slow-body":
			w.Header().Set("Content-Length", "10")
			io.WriteString(w, "12345")
			w.(http.Flusher).Flush()
			select {
			case <-rest:
			case <-r.Context().Done():
			}
			io.WriteString(w, "67890")
			return
		case "/chunked":
			io.WriteString(w, "a")
			w.(http.Flusher).Flush()
			io.WriteString(w, "b")
			return
		}
		io.WriteString(w, "ok "+r.URL.Path)
	}))
	defer srv.Close()
	defer close(rest)
	tests := []struct {
		name       string
		paths      []string
		timeout    time.Duration
		wantBody   string
		wantErr    error
		wantOpened uint64
		wantOpen   int64
	}{
		// A request past its timeout closes its connection: the timeouts
		// of the exchanges that must succeed leave room for a loaded machine.
		{"keep-alive reuses one connection", []string{"/a", "/b", "/c"}, 10 * time.Second, "ok /c", nil, 1, 1},
		{"chunked body then reuse", []string{"/chunked", "/a"}, 10 * time.Second, "ok /a", nil, 1, 1},
		{"Connection: close reconnects", []string{"/close", "/a"}, 10 * time.Second, "ok /a", nil, 2, 1},
		{"timeout mid-body closes", []string{"/slow-body"}, 100 * time.Millisecond, "", context.DeadlineExceeded, 1, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			w, cc := newTestWorker(t)
			var body string
			var err error
			for _, p := range tc.paths {
				ctx, cancel := context.WithTimeout(context.Background(), tc.timeout)
				body, err = do(t, w, ctx, srv.URL+p)
				cancel()
			}
			if tc.wantErr != nil {
				if err == nil || !(errors.Is(err, tc.wantErr) || strings.Contains(err.Error(), "timeout")) {
					t.Fatalf("err %v, want %v", err, tc.wantErr)
				}
			} else if err != nil || body != tc.wantBody {
				t.Fatalf("body %q err %v, want %q", body, err, tc.wantBody)
			}
			if cc.Opened() != tc.wantOpened || cc.Open() != tc.wantOpen {
				t.Fatalf("connections opened %d open %d, want %d %d", cc.Opened(), cc.Open(), tc.wantOpened, tc.wantOpen)
			}
		})
	}
}

func TestWorkerRetriesStaleConnection(t *testing.T) {
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "ok")
	}))
	srv.Start()
	defer srv.Close()
	w, cc := newTestWorker(t)
	if b, err := do(t, w, context.Background(), srv.URL); err != nil || b != "ok" {
		t.Fatal(b, err)
	}
	srv.CloseClientConnections() // the upstream drops the idle connection (returns once closed)
	if b, err := do(t, w, context.Background(), srv.URL); err != nil || b != "ok" {
		t.Fatalf("after the upstream closed the idle connection: %q %v", b, err)
	}
	if cc.Opened() != 2 || cc.Open() != 1 {
		t.Fatalf("opened %d open %d, want 2 1", cc.Opened(), cc.Open())
	}
}

func TestWorkerHTTPS(t *testing.T) {
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "secure")
	}))
	defer srv.Close()
	// The test certificate is for 127.0.0.1 but signed by an unknown CA:
	// the handshake must fail cleanly, with the connection closed.
	w, cc := newTestWorker(t)
	if _, err := do(t, w, context.Background(), srv.URL); err == nil {
		t.Fatal("untrusted certificate accepted")
	}
	if cc.Open() != 0 {
		t.Fatalf("%d connections left open after a failed handshake", cc.Open())
	}
}
