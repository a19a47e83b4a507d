package origin

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/loadlab/loadlab/internal/origin/recipe"
)

func TestWelcomeRecipe(t *testing.T) {
	sim, srv := newTestServer(t, Options{})
	sim.SetBaseURL(srv.URL)
	r := get(t, srv.URL+"/anything")
	if r.err != nil || r.status != 200 {
		t.Fatalf("GET: %d %v", r.status, r.err)
	}
	if r.elapsed < 100*time.Millisecond {
		t.Errorf("welcome answered in %v, want >= 100ms", r.elapsed)
	}
	// Plain text for every client (origin_simulator gzips it even for a
	// client that did not ask), with examples naming this simulator.
	if r.header.Get("Content-Encoding") != "" || r.header.Get("Cache-Control") != "public, max-age=30" {
		t.Errorf("headers = %v", r.header)
	}
	if html := string(r.body); !strings.Contains(html, "Welcome!") || !strings.Contains(html, srv.URL+"/_admin/add_recipe") || strings.Contains(html, "127.0.0.1:8080") {
		t.Errorf("welcome page = %.2000s", html)
	}
	var recs []map[string]any
	cr := get(t, srv.URL+"/_admin/current_recipe")
	if err := json.Unmarshal(cr.body, &recs); err != nil || len(recs) != 1 || recs[0]["route"] != "/*" {
		t.Fatalf("current_recipe = %s (%v)", cr.body, err)
	}
	for _, k := range []string{"route", "origin", "body", "random_content", "headers", "stages"} {
		if _, ok := recs[0][k]; !ok {
			t.Errorf("current_recipe lacks %q", k)
		}
	}
}

// fakeBBC stands in for the origins the vector recipes name.
func fakeBBC(t *testing.T) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Set("X-Recorded", "yes")
		_, _ = w.Write([]byte("<html>page " + r.URL.Path + "</html>"))
	}))
	t.Cleanup(srv.Close)
	return srv
}

func TestVectorRecipes(t *testing.T) {
	files, _ := filepath.Glob("testdata/*.json")
	if len(files) < 17 {
		t.Fatalf("want the vector recipes in testdata, got %d", len(files))
	}
	bbc := fakeBBC(t)
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			t.Parallel()
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			text := strings.ReplaceAll(string(data), "https://www.bbc.co.uk", bbc.URL)
			recs, err := recipe.Parse([]byte(text))
			if err != nil {
				t.Fatal(err)
			}
			_, srv := newTestServer(t, Options{AllowLocalOrigins: true})
			mustLoad(t, srv, text)
			for _, rec := range recs {
				path := strings.TrimSuffix(rec.Route, "*")
				if strings.HasSuffix(rec.Route, "*") {
					path += "x/y"
				}
				st := rec.Stages[0]
				want, _ := st.Status.Single()
				r := get(t, srv.URL+path)
				if r.err != nil || r.status != want {
					t.Fatalf("%s: got %d %v, want %d", path, r.status, r.err, want)
				}
				if lo, _ := minLatency(st.Latency); r.elapsed < lo {
					t.Errorf("%s: answered in %v, before the stage latency %v", path, r.elapsed, lo)
				}
				body := r.body
				if rec.Gzip {
					if r.header.Get("Content-Encoding") != "gzip" {
						t.Errorf("%s: no content-encoding gzip", path)
					}
					body = gunzip(t, body)
				}
				switch {
				case want == 404:
					checkBody(t, path, body, "Not found")
				case want == 406:
					checkBody(t, path, body, recipeNotSet(path))
				case want != 200:
					checkBody(t, path, body, "Error "+itoa(want))
				case rec.Origin != "":
					opath := strings.TrimPrefix(rec.Origin, bbc.URL)
					if opath == "" {
						opath = "/"
					}
					checkBody(t, path, body, "<html>page "+opath+"</html>")
					if r.header.Get("X-Recorded") != "yes" {
						t.Errorf("%s: recorded origin headers not replayed: %v", path, r.header)
					}
				case rec.HasRandom:
					if n := int64(len(body)); n < rec.RandomMin || n > rec.RandomMax {
						t.Errorf("%s: random body of %d bytes, want %d..%d", path, n, rec.RandomMin, rec.RandomMax)
					}
				case rec.HasBody && len(rec.BodyParts) == 1:
					checkBody(t, path, body, rec.BodyParts[0].Text)
				}
				if r.header.Get("Content-Length") != itoa(len(r.body)) {
					t.Errorf("%s: content-length %q for %d bytes", path, r.header.Get("Content-Length"), len(r.body))
				}
			}
		})
	}
}

func minLatency(l recipe.Latency) (time.Duration, bool) {
	switch x := l.(type) {
	case recipe.Fixed:
		return time.Duration(x), true
	case recipe.Uniform:
		return x.Min, true
	}
	return 0, false
}

func checkBody(t *testing.T, path string, got []byte, want string) {
	t.Helper()
	if string(got) != want {
		t.Errorf("%s: body %.80q, want %.80q", path, got, want)
	}
}

func itoa(i int) string { return strconv.Itoa(i) }

func TestContentTypeAndHeaders(t *testing.T) {
	_, srv := newTestServer(t, Options{})
	mustLoad(t, srv, `[
	 {"route": "/json", "body": "{\"hello\":\"world\"}", "headers": {"response-header": "123"}, "stages": [{"at": 0, "status": 200, "latency": 0}]},
	 {"route": "/html", "body": "<p>hi</p>", "stages": [{"at": 0, "status": 200, "latency": 0}]},
	 {"route": "/ph", "body": "a<<1kb>>b", "stages": [{"at": 0, "status": 200, "latency": 0}]},
	 {"route": "/gzjson", "body": "{}", "headers": {"content-encoding": "gzip", "content-type": "application/json; charset=utf-8"}, "stages": [{"at": 0, "status": 503, "latency": 0}]}
	]`)
	r := get(t, srv.URL+"/json")
	if r.header.Get("Content-Type") != "application/json; charset=utf-8" || r.header.Get("Response-Header") != "123" ||
		r.header.Get("Cache-Control") != defaultCacheControl {
		t.Errorf("/json headers = %v", r.header)
	}
	if r := get(t, srv.URL+"/html"); r.header.Get("Content-Type") != "text/html; charset=utf-8" {
		t.Errorf("/html headers = %v", r.header)
	}
	r = get(t, srv.URL+"/ph")
	if len(r.body) != 1026 || r.body[0] != 'a' || r.body[1025] != 'b' || strings.Contains(string(r.body), "<<") {
		t.Errorf("placeholder body = %d bytes %.20q", len(r.body), r.body)
	}
	if r2 := get(t, srv.URL+"/ph"); string(r2.body) != string(r.body) {
		t.Errorf("placeholder body changes between requests; want it built once at load time")
	}
	r = get(t, srv.URL+"/gzjson")
	if r.status != 503 || string(gunzip(t, r.body)) != "Error 503" {
		t.Errorf("gzip error body: %d %q", r.status, r.body)
	}
}

func TestNon200Bodies(t *testing.T) {
	_, srv := newTestServer(t, Options{})
	mustLoad(t, srv, `{"route": "/x*", "body": "content", "stages": [{"status": 200}]}`)
	cases := []struct {
		status int
		body   string
	}{{304, ""}, {404, "Not found"}, {500, "Error 500"}, {406, "Recipe not set at /x1, please POST a recipe for this route to /_admin/add_recipe"}, {201, "content"}, {204, ""}}
	for _, c := range cases {
		r := get(t, srv.URL+"/x1?status="+itoa(c.status))
		if r.status != c.status || string(r.body) != c.body {
			t.Errorf("status %d: got %d %q, want %q", c.status, r.status, r.body, c.body)
		}
	}
}

func TestOriginRecordedStatusLine(t *testing.T) {
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		w.Header().Set("X-Up", "1")
		w.WriteHeader(http.StatusGone)
		_, _ = w.Write([]byte("gone for good"))
	}))
	defer up.Close()
	_, srv := newTestServer(t, Options{AllowLocalOrigins: true})
	mustLoad(t, srv, `{"origin": "`+up.URL+`/old", "stages": [{"status": 200}]}`)
	r := get(t, srv.URL+"/x")
	if r.status != http.StatusGone || string(r.body) != "gone for good" || r.header.Get("X-Up") != "1" || r.header.Get("Content-Type") != "text/plain" {
		t.Errorf("recorded answer: %d %q %v", r.status, r.body, r.header)
	}
	if r := get(t, srv.URL+"/x?status=503"); r.status != 503 || string(r.body) != "Error 503" {
		t.Errorf("a stage's failure status still wins: %d %q", r.status, r.body)
	}
}
