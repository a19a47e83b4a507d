package leanserver

import (
	"context"
	"errors"
	"net"
	"net/http"
	"testing"
	"time"
)

// startLean serves h with the lean server on a loopback port, net/http's
// server taking what it hands over, until the test ends; it returns the
// base URL.
func startLean(t testing.TB, cfg Config, h http.Handler) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- Serve(ctx, ln, cfg, h, &http.Server{Handler: h}, nil, nil) }()
	t.Cleanup(func() {
		cancel()
		select {
		case err := <-done:
			if err != nil && !errors.Is(err, ErrShutdownCut) {
				t.Errorf("Serve: %v", err)
			}
		case <-time.After(10 * time.Second):
			t.Error("Serve did not stop")
		}
	})
	return "http://" + ln.Addr().String()
}
