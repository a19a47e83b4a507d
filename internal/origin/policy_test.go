package origin

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
)

// A recipe posted from a web page of another site must not load: the
// cross-site text/plain POST a page can send without a preflight is
// refused, and so is a request whose Host is a name that resolves here.
func TestAdminRefusesCrossSiteRequests(t *testing.T) {
	_, srv := newTestServer(t, Options{})
	recipe := `{"body": "pwned", "stages": [{"status": 200}]}`
	cases := []struct {
		name string
		hdr  []string
	}{
		{"foreign Origin", []string{"Origin", "http://evil.example", "Content-Type", "text/plain"}},
		{"null Origin", []string{"Origin", "null"}},
		{"Sec-Fetch-Site cross-site", []string{"Sec-Fetch-Site", "cross-site"}},
		{"foreign Referer", []string{"Referer", "http://evil.example/page.html"}},
	}
	for _, c := range cases {
		r := do(t, http.MethodPost, srv.URL+"/_admin/add_recipe", recipe, c.hdr...)
		if r.status != http.StatusForbidden {
			t.Errorf("%s: status %d, want 403: %s", c.name, r.status, r.body)
		}
	}
	// an old browser following a link or loading an image: a GET with
	// only a cross-site Referer
	if status := withHost(t, http.MethodGet, srv.URL+"/_admin/restart", strings.TrimPrefix(srv.URL, "http://"), "", "Referer", "http://evil.example/"); status != http.StatusForbidden {
		t.Errorf("GET /_admin/restart with a foreign Referer: status %d, want 403", status)
	}
	if status := withHost(t, http.MethodGet, srv.URL+"/_admin/status", strings.TrimPrefix(srv.URL, "http://"), "", "Referer", srv.URL+"/_admin/routes"); status != 200 {
		t.Errorf("same-origin Referer: status %d, want 200", status)
	}
	if status := withHost(t, http.MethodPost, srv.URL+"/_admin/add_recipe", "evil.example:80", recipe); status != http.StatusForbidden {
		t.Errorf("rebound Host: status %d, want 403", status)
	}
	if g := get(t, srv.URL+"/x"); strings.Contains(string(g.body), "pwned") {
		t.Fatal("a refused recipe was loaded")
	}
	// curl-like clients (no Origin, an IP Host) and same-origin pages work.
	mustLoad(t, srv, `{"body": "ok", "stages": [{"status": 200}]}`)
	if r := do(t, http.MethodPost, srv.URL+"/_admin/add_recipe", `{"body": "same", "stages": [{"status": 200}]}`, "Origin", srv.URL); r.status != http.StatusCreated {
		t.Errorf("same-origin page: %d %s", r.status, r.body)
	}
	if status := withHost(t, http.MethodGet, srv.URL+"/_admin/status", "localhost", ""); status != 200 {
		t.Errorf("Host localhost: %d", status)
	}
}

func TestAdminHostsAndTokenAllowNames(t *testing.T) {
	_, srv := newTestServer(t, Options{AdminHosts: []string{"origin.test"}})
	if status := withHost(t, http.MethodGet, srv.URL+"/_admin/status", "origin.test:8080", ""); status != 200 {
		t.Errorf("allowed name: %d", status)
	}
	if status := withHost(t, http.MethodGet, srv.URL+"/_admin/status", "other.test:8080", ""); status != http.StatusForbidden {
		t.Errorf("other name: %d", status)
	}
	_, tok := newTestServer(t, Options{AdminToken: "s3cret"})
	if status := withHost(t, http.MethodGet, tok.URL+"/_admin/status", "any.test", "", "Authorization", "Bearer s3cret"); status != 200 {
		t.Errorf("with a token any Host is fine: %d", status)
	}
}

// withHost sends a request with the given Host header and returns its status.
func withHost(t *testing.T, method, url, host, body string, hdr ...string) int {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Host = host
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// Without -allow-local-origins a recipe cannot make the simulator fetch
// (and replay) pages on this machine, including its own admin API.
func TestLocalOriginsRefused(t *testing.T) {
	var hits atomic.Int32
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		_, _ = w.Write([]byte("secret"))
	}))
	defer up.Close()
	_, srv := newTestServer(t, Options{})
	for _, u := range []string{up.URL + "/", srv.URL + "/_admin/current_recipe", "http://localhost:" + strings.Split(up.URL, ":")[2] + "/"} {
		r := do(t, http.MethodPost, srv.URL+"/_admin/add_recipe", `{"origin": "`+u+`", "stages": [{"status": 200}]}`)
		var e apiError
		if r.status != 400 || json.Unmarshal(r.body, &e) != nil || e.Field != "origin" || !strings.Contains(e.Error, "-allow-local-origins") {
			t.Errorf("%s: %d %s", u, r.status, r.body)
		}
	}
	if n := hits.Load(); n != 0 {
		t.Errorf("the local origin was reached %d times", n)
	}
	_, allowed := newTestServer(t, Options{AllowLocalOrigins: true})
	mustLoad(t, allowed, `{"origin": "`+up.URL+`/", "stages": [{"status": 200}]}`)
	if g := get(t, allowed.URL+"/x"); string(g.body) != "secret" {
		t.Errorf("allowed local origin served %q", g.body)
	}
}

func TestOfflineServesStandIns(t *testing.T) {
	dir := t.TempDir()
	page := filepath.Join(dir, "front.html")
	if err := os.WriteFile(page, []byte("<html>front page</html>"), 0o644); err != nil {
		t.Fatal(err)
	}
	var logs []string
	sim := New(Options{Seed: 3, Offline: true, OfflineSize: 5000,
		OriginFiles: map[string]string{"https://www.bbc.co.uk/news": page},
		Logf:        func(f string, a ...any) { logs = append(logs, f) }})
	defer sim.Close()
	rec := `[{"route": "/news", "origin": "https://www.bbc.co.uk/news", "stages": [{"status": 200}]},
	         {"route": "/sport", "origin": "https://www.bbc.co.uk/sport", "stages": [{"status": 200}]}]`
	if err := sim.LoadRecipe([]byte(rec), "r.json"); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(sim)
	defer srv.Close()
	if g := get(t, srv.URL+"/news"); string(g.body) != "<html>front page</html>" {
		t.Errorf("mapped file: %q", g.body)
	}
	if g := get(t, srv.URL+"/sport"); g.status != 200 || len(g.body) != 5000 {
		t.Errorf("stand-in: %d, %d bytes", g.status, len(g.body))
	}
	joined := strings.Join(logs, "\n")
	if !strings.Contains(joined, "offline") || !strings.Contains(joined, "not fetched") {
		t.Errorf("offline mode not said in the log: %q", joined)
	}
}

// Every recipe's bodies count against one bound, across loads; a route a
// load replaces no longer counts.
func TestRecipeMemoryBound(t *testing.T) {
	sim := New(Options{Seed: 1, MaxRecipeMemory: 3 << 20})
	defer sim.Close()
	if err := sim.LoadRecipe([]byte(`{"route": "/a", "body": "<<2mb>>", "stages": [{"status": 200}]}`), "a.json"); err != nil {
		t.Fatal(err)
	}
	err := sim.LoadRecipe([]byte(`{"route": "/b", "body": "<<2mb>>", "stages": [{"status": 200}]}`), "b.json")
	if err == nil || !strings.Contains(err.Error(), "4.0 MiB in total, more than the 3.0 MiB limit") {
		t.Fatalf("second body: %v", err)
	}
	if err := sim.LoadRecipe([]byte(`{"route": "/a", "body": "<<3mb>>", "stages": [{"status": 200}]}`), "a2.json"); err != nil {
		t.Errorf("replacing /a: %v", err)
	}
}
