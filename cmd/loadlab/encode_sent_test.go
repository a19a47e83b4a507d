package main

import (
	"bufio"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// TestEncodeWritesWhatWasSent attacks a recording server with templated
// URLs, headers (in the target and from -header) and bodies, through both
// HTTP clients, and checks that `encode -to json` and `-to csv` write, for
// every result, the URL, headers and body the server really received,
// rendered again from the templates, the sequence number and the seed in
// the results header; reports keep grouping by the template.
func TestEncodeWritesWhatWasSent(t *testing.T) {
	type got struct{ header, body string }
	var mu sync.Mutex
	seen := map[string]got{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		seen[r.URL.RequestURI()+" "+r.Header.Get("X-Run")] = got{r.Header.Get("X-Id") + "|" + r.Header.Get("X-Run") + "|" + r.Header.Get("X-Static"), string(b)}
		mu.Unlock()
	}))
	defer srv.Close()
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "body.tmpl"), []byte(`{"n":{{rand.int 1 1000000}},"w":"{{rand.choice a b c}}"}`), 0o644)
	targets := filepath.Join(dir, "targets.txt")
	os.WriteFile(targets, []byte("POST "+srv.URL+"/search?q={{rand.letters 12}}&seq={{seq}}\nX-Id: {{uuid}}\nX-Static: s\n@body.tmpl\n\nGET "+srv.URL+"/static\n"), 0o644)
	for _, client := range []string{"lean", "std"} {
		t.Run(client, func(t *testing.T) {
			mu.Lock()
			clear(seen)
			mu.Unlock()
			out := filepath.Join(dir, client+".lll")
			if code, _, stderr := runCLI(t, nil, "attack", "-client", client, "-targets", targets, "-header", "X-Run: {{rand.hex 6}}",
				"-rate", "100/s", "-duration", "400ms", "-output", out); code != 0 {
				t.Fatalf("attack: %s", stderr)
			}
			code, js, stderr := runCLI(t, nil, "encode", "-to", "json", out)
			if code != 0 {
				t.Fatalf("encode: %s", stderr)
			}
			mu.Lock()
			defer mu.Unlock()
			sc := bufio.NewScanner(strings.NewReader(js))
			n, templated := 0, 0
			for sc.Scan() {
				var r struct {
					URL     string      `json:"url"`
					Code    int         `json:"code"`
					Header  http.Header `json:"request_header"`
					Body    []byte      `json:"request_body"`
					BytesOu int         `json:"bytes_out"`
				}
				if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
					t.Fatal(err)
				}
				n++
				if r.Code != 200 {
					t.Fatalf("result %d: code %d", n, r.Code)
				}
				uri := strings.TrimPrefix(r.URL, srv.URL)
				s, ok := seen[uri+" "+r.Header.Get("X-Run")]
				if !ok {
					t.Fatalf("encode wrote %q with X-Run %q, which the server never received", r.URL, r.Header.Get("X-Run"))
				}
				if uri == "/static" { // templated only by -header's X-Run
					if r.Body != nil || len(r.Header) != 1 {
						t.Errorf("/static: request_header %v, request_body %q", r.Header, r.Body)
					}
					continue
				}
				templated++
				h := r.Header.Get("X-Id") + "|" + r.Header.Get("X-Run") + "|" + r.Header.Get("X-Static")
				if h != s.header || string(r.Body) != s.body || r.BytesOu != len(s.body) {
					t.Errorf("%s: encode says headers %q body %q (%d bytes out), the server received %q %q", uri, h, r.Body, r.BytesOu, s.header, s.body)
				}
			}
			if templated < 15 || n != len(seen) {
				t.Fatalf("%d results (%d templated), the server saw %d distinct requests", n, templated, len(seen))
			}
			_, csv, _ := runCLI(t, nil, "encode", "-to", "csv", out)
			urls := map[string]bool{}
			for k := range seen {
				uri, _, _ := strings.Cut(k, " ")
				urls[srv.URL+uri] = true
			}
			for _, line := range strings.Split(strings.TrimSpace(csv), "\n") {
				if f := strings.Split(line, ","); !urls[f[10]] {
					t.Errorf("csv line with a URL never requested: %s", line)
				}
			}
			_, rep, _ := runCLI(t, nil, "report", out)
			if !strings.Contains(rep, "/search?q={{rand.letters 12}}&seq={{seq}}") {
				t.Errorf("the report does not group the templated target by its template:\n%s", rep)
			}
		})
	}
}
