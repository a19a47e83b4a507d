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
func start(t testing.TB, cfg Config, h http.Handler) string {
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

// kinds are the servers every Run test goes through.
var kinds = []struct {
	name string
	cfg  Config
}{
	{"std", Config{Std: true}},
	{"default", Config{}},
}

func TestModes(t *testing.T) {
	for _, k := range kinds {
		t.Run(k.name, func(t *testing.T) {
			dir := t.TempDir()
			certFile := filepath.Join(dir, "cert.pem")

			u := start(t, k.cfg, hello)
			if got, _ := fetch(t, http.DefaultClient, u); got != "HTTP/1.1" {
				t.Errorf("plain: %s", got)
			}

			cfg := k.cfg
			cfg.H2C = true
			u = start(t, cfg, hello)
			p := new(http.Protocols)
			p.SetUnencryptedHTTP2(true)
			h2c := &http.Client{Transport: &http.Transport{Protocols: p}}
			if got, _ := fetch(t, h2c, u); got != "HTTP/2.0" {
				t.Errorf("h2c: %s", got)
			}
			if got, _ := fetch(t, http.DefaultClient, u); got != "HTTP/1.1" {
				t.Errorf("h2c server, HTTP/1.1 client: %s", got)
			}

			cfg = k.cfg
			cfg.TLS, cfg.CertOut = true, certFile
			u = start(t, cfg, hello)
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
		})
	}
}

func TestMaxConnRequests(t *testing.T) {
	for _, k := range kinds {
		t.Run(k.name, func(t *testing.T) {
			cfg := k.cfg
			cfg.MaxConnRequests = 2
			u := start(t, cfg, hello)
			c := &http.Client{Transport: &http.Transport{}}
			_, r1 := fetch(t, c, u)
			_, r2 := fetch(t, c, u)
			if r1.Close || !r2.Close {
				t.Errorf("Connection: close on requests 1, 2 = %v, %v; want false, true", r1.Close, r2.Close)
			}
		})
	}
}
