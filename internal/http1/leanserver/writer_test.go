package leanserver

import (
	"bytes"
	"io"
	"net/http"
	"os"
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
	f, err := os.CreateTemp(t.TempDir(), "body")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteAt(body, 0); err != nil { // the offset stays at 0
		t.Fatal(err)
	}
	const off = 4096
	type atSender interface {
		SendFileAt(f *os.File, off, n int64) (int64, bool, error)
	}
	url := startLean(t, Config{}, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fs, ok := w.(atSender)
		if !ok {
			t.Error("the lean writer has no SendFileAt")
			return
		}
		n := int64(len(body) - off)
		if r.URL.Path == "/known" {
			w.Header().Set("Content-Length", strconv.FormatInt(n, 10))
		}
		// Without a raw socket (the portable build) sendfile is not used:
		// SendFileAt says so and the handler writes the body itself.
		raw := w.(*leanWriter).c.raw != nil
		sent, ok, err := fs.SendFileAt(f, off, n)
		if ok {
			w.Header().Set("X-Never-Sent", "1") // after the head: not sent
		}
		switch {
		case r.URL.Path == "/known" && r.Method == http.MethodGet && raw:
			if !ok || err != nil || sent != n {
				t.Errorf("SendFileAt: sent %d ok %v err %v", sent, ok, err)
			}
		case r.URL.Path == "/known" && r.Method == http.MethodGet:
			if ok || sent != 0 || err != nil {
				t.Errorf("SendFileAt without a raw socket: sent %d ok %v err %v; want nothing", sent, ok, err)
			}
			_, _ = w.Write(body[off:])
		case ok || sent != 0:
			t.Errorf("%s %s: SendFileAt sent %d, ok %v; want nothing", r.Method, r.URL.Path, sent, ok)
			return
		default:
			_, _ = w.Write([]byte("fallback"))
		}
	}))
	client := &http.Client{Timeout: 20 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: 4}}
	defer client.CloseIdleConnections()
	// get fetches a whole answer; from the test's goroutines too (no Fatal).
	get := func(method, path string) (resp *http.Response, b []byte, err error) {
		req, _ := http.NewRequest(method, url+path, nil)
		if resp, err = client.Do(req); err == nil {
			b, err = io.ReadAll(resp.Body)
			resp.Body.Close()
		}
		return resp, b, err
	}
	done := make(chan struct{})
	for range 4 {
		go func() {
			defer func() { done <- struct{}{} }()
			for range 5 {
				resp, b, err := get(http.MethodGet, "/known")
				if err != nil || !bytes.Equal(b, body[off:]) || resp.Header.Get("X-Never-Sent") != "" {
					t.Errorf("GET /known: %d bytes, err %v", len(b), err)
					return
				}
			}
		}()
	}
	for range 4 {
		<-done
	}
	if resp, b, err := get(http.MethodHead, "/known"); err != nil || len(b) != 0 || resp.ContentLength != int64(len(body)-off) {
		t.Errorf("HEAD /known: %d bytes, err %v", len(b), err)
	}
	if _, b, err := get(http.MethodGet, "/unknown"); err != nil || string(b) != "fallback" {
		t.Errorf("GET /unknown: %q (%v), want the handler's own body", b, err)
	}
	if pos, err := f.Seek(0, io.SeekCurrent); err != nil || pos != 0 {
		t.Errorf("handle offset %d (%v), want 0", pos, err)
	}
}
