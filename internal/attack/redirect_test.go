package attack

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"
)

// A redirect from http:// to https:// is followed by the lean client as
// net/http's follows it (it hands it to net/http): same status, body,
// method, headers, Referer and redirect limit, whichever client.
func TestRedirectToHTTPSAlike(t *testing.T) {
	tlsSrv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/again" {
			http.Redirect(w, r, "/echo", http.StatusFound)
			return
		}
		b, _ := io.ReadAll(r.Body)
		fmt.Fprintf(w, "%s %s X-A=%s AE=%s Ref=%s body=%s", r.Proto, r.Method, r.Header.Get("X-A"),
			r.Header.Get("Accept-Encoding"), r.Header.Get("Referer"), b)
	}))
	defer tlsSrv.Close()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		code := http.StatusFound
		if r.URL.Query().Get("keep") != "" {
			code = http.StatusTemporaryRedirect
		}
		to := tlsSrv.URL + "/echo"
		if r.URL.Path == "/twice" {
			to = tlsSrv.URL + "/again"
		}
		http.Redirect(w, r, to, code)
	}))
	defer srv.Close()
	cases := []struct {
		name, target string
		redirects    int
		want         string // body, or the error's end
		code         uint16
	}{
		{"GET 302", "GET " + srv.URL + "/go\nX-A: a\n", 10, "HTTP/1.1 GET X-A=a AE=gzip Ref=" + srv.URL + "/go body=", 200},
		{"POST 302 becomes GET", "POST " + srv.URL + "/go\n@" + bodyFile(t, "hello"), 10, "HTTP/1.1 GET X-A= AE=gzip Ref=" + srv.URL + "/go body=", 200},
		{"POST 307 keeps its body", "POST " + srv.URL + "/go?keep=1\n@" + bodyFile(t, "hello"), 10, "HTTP/1.1 POST X-A= AE=gzip Ref=" + srv.URL + "/go?keep=1 body=hello", 200},
		{"two redirects", "GET " + srv.URL + "/twice\n", 2, "HTTP/1.1 GET X-A= AE=gzip Ref=" + tlsSrv.URL + "/again body=", 200},
		{"limit", "GET " + srv.URL + "/twice\n", 1, `Get "/echo": stopped after 1 redirects`, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := map[string]string{}
			for _, client := range clients {
				o := DefaultOptions()
				o.Client, o.Insecure, o.HTTP2, o.MaxBody, o.Redirects = client, true, false, -1, c.redirects
				o.Schedule = sched(t, "100/s", 20*time.Millisecond)
				rs, _ := run(t, context.Background(), parse(t, c.target), o)
				if len(rs) == 0 {
					t.Fatalf("%s: no result", client)
				}
				r := rs[0]
				if r.Code != c.code || (c.code == 200 && string(r.Body) != c.want) || (c.code == 0 && !strings.HasSuffix(r.Error, c.want)) {
					t.Errorf("%s: code %d body %q error %q, want %d %q", client, r.Code, r.Body, r.Error, c.code, c.want)
				}
				got[client] = fmt.Sprintf("%d %d %q %q", r.Code, r.BytesIn, r.Body, r.Error)
			}
			if got["lean"] != got["std"] {
				t.Errorf("lean %s\nstd  %s", got["lean"], got["std"])
			}
		})
	}
}

// bodyFile writes a request body file for a target and returns its path.
func bodyFile(t *testing.T, body string) string {
	t.Helper()
	p := t.TempDir() + "/body"
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}
