package serve

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// start runs Run in the background and returns its base URL.
func start(t *testing.T, cfg Config, h http.Handler) string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	urlc := make(chan string, 1)
	done := make(chan error, 1)
	go func() { done <- Run(ctx, cfg, h, func(u string) { urlc <- u }, nil) }()
	t.Cleanup(func() {
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("Run: %v", err)
			}
		case <-time.After(10 * time.Second):
			t.Error("Run did not stop")
		}
	})
	select {
	case u := <-urlc:
		return u
	case err := <-done:
		t.Fatalf("Run: %v", err)
	}
	return ""
}

var hello = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
	_, _ = io.WriteString(w, r.Proto)
})

func fetch(t *testing.T, c *http.Client, url string) (string, *http.Response) {
	t.Helper()
	resp, err := c.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return string(b), resp
}

func TestModes(t *testing.T) {
	dir := t.TempDir()
	certFile := filepath.Join(dir, "cert.pem")

	u := start(t, Config{}, hello)
	if got, _ := fetch(t, http.DefaultClient, u); got != "HTTP/1.1" {
		t.Errorf("plain: %s", got)
	}

	u = start(t, Config{H2C: true}, hello)
	p := new(http.Protocols)
	p.SetUnencryptedHTTP2(true)
	h2c := &http.Client{Transport: &http.Transport{Protocols: p}}
	if got, _ := fetch(t, h2c, u); got != "HTTP/2.0" {
		t.Errorf("h2c: %s", got)
	}

	u = start(t, Config{TLS: true, CertOut: certFile}, hello)
	pemBytes, err := os.ReadFile(certFile)
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(pemBytes)
	tr := &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}, ForceAttemptHTTP2: true}
	if got, _ := fetch(t, &http.Client{Transport: tr}, u); got != "HTTP/2.0" {
		t.Errorf("tls: %s", got)
	}
}

func TestMaxConnRequests(t *testing.T) {
	u := start(t, Config{MaxConnRequests: 2}, hello)
	_, r1 := fetch(t, http.DefaultClient, u)
	_, r2 := fetch(t, http.DefaultClient, u)
	if r1.Close || !r2.Close {
		t.Errorf("Connection: close on requests 1, 2 = %v, %v; want false, true", r1.Close, r2.Close)
	}
}
