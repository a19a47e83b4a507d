package origin

import (
	"io"
	"net/http/httptest"
	"testing"
)

// On HTTP/2 a connection carries many streams: faults reset the stream.
func TestFaultsOverHTTP2(t *testing.T) {
	sim := New(Options{Seed: 1})
	srv := httptest.NewUnstartedServer(sim)
	srv.EnableHTTP2 = true
	srv.StartTLS()
	t.Cleanup(func() { _ = sim.Close(); srv.Close() })
	c := srv.Client()
	if err := sim.LoadRecipe([]byte(`{"body": "hello h2", "stages": [{"status": 200}]}`), "h2"); err != nil {
		t.Fatal(err)
	}
	resp, err := c.Get(srv.URL + "/")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.ProtoMajor != 2 || string(b) != "hello h2" {
		t.Fatalf("got %s %q", resp.Proto, b)
	}
	for _, f := range []string{"reset", "close", "truncate"} {
		resp, err := c.Post(srv.URL+"/?fault="+f, "text/plain", nil)
		if err == nil {
			_, err = io.ReadAll(resp.Body)
			resp.Body.Close()
		}
		if err == nil {
			t.Errorf("%s over HTTP/2: no error", f)
		}
	}
	// The connection survives stream resets.
	if resp, err := c.Get(srv.URL + "/"); err != nil || resp.StatusCode != 200 {
		t.Errorf("after faults: %v", err)
	} else {
		resp.Body.Close()
	}
}
