package http1

import (
	"bytes"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"
)

// SendFileAt sends a part of a file from one shared handle, several answers
// at once and one after another, and leaves the handle's own offset alone;
// where it cannot (HEAD, no Content-Length) it says so and sends nothing.
func TestSendFileAt(t *testing.T) {
	body := make([]byte, 200<<10)
	for i := range body {
		body[i] = byte(i * 7)
	}
	path := filepath.Join(t.TempDir(), "body")
	if err := os.WriteFile(path, body, 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	const off = 4096
	type atSender interface {
		SendFileAt(f *os.File, off, n int64) (int64, bool, error)
	}
	url := startLean(t, ServerConfig{}, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fs, ok := w.(atSender)
		if !ok {
			t.Error("the lean writer has no SendFileAt")
			return
		}
		n := int64(len(body) - off)
		if r.URL.Path == "/known" {
			w.Header().Set("Content-Length", strconv.FormatInt(n, 10))
		}
		sent, ok, err := fs.SendFileAt(f, off, n)
		w.Header().Set("X-Never-Sent", "1") // after the head: not sent
		switch {
		case r.URL.Path == "/known" && r.Method == http.MethodGet:
			if !ok || err != nil || sent != n {
				t.Errorf("SendFileAt: sent %d ok %v err %v", sent, ok, err)
			}
		case ok || sent != 0:
			t.Errorf("%s %s: SendFileAt sent %d, ok %v; want nothing", r.Method, r.URL.Path, sent, ok)
			return
		default:
			_, _ = w.Write([]byte("fallback"))
		}
	}))
	client := &http.Client{Timeout: 20 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: 4}}
	defer client.CloseIdleConnections()
	get := func(method, path string) (*http.Response, []byte) {
		req, _ := http.NewRequest(method, url+path, nil)
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatal(err)
		}
		return resp, b
	}
	done := make(chan struct{})
	for range 4 {
		go func() {
			defer func() { done <- struct{}{} }()
			for range 5 {
				resp, b := get(http.MethodGet, "/known")
				if !bytes.Equal(b, body[off:]) || resp.Header.Get("X-Never-Sent") != "" {
					t.Errorf("GET /known: %d bytes, header %q", len(b), resp.Header.Get("X-Never-Sent"))
					return
				}
			}
		}()
	}
	for range 4 {
		<-done
	}
	if resp, b := get(http.MethodHead, "/known"); len(b) != 0 || resp.ContentLength != int64(len(body)-off) {
		t.Errorf("HEAD /known: %d bytes, Content-Length %d", len(b), resp.ContentLength)
	}
	if _, b := get(http.MethodGet, "/unknown"); string(b) != "fallback" {
		t.Errorf("GET /unknown: %q, want the handler's own body", b)
	}
	if pos, err := f.Seek(0, io.SeekCurrent); err != nil || pos != 0 {
		t.Errorf("handle offset %d (%v), want 0", pos, err)
	}
}
