package attack

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/loadlab/loadlab/internal/targets"
)

// What the server receives from the default (lean) client is what
// -client=std sends, for a path with a space (static and templated):
// escaped, not a malformed request line.
func TestLeanSendsWhatNetHTTPSends(t *testing.T) {
	var mu sync.Mutex
	var got []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		got = append(got, r.RequestURI)
		mu.Unlock()
	}))
	defer srv.Close()
	for _, client := range []string{"lean", "std"} {
		for _, tgt := range []string{"GET " + srv.URL + "/a b?q=1", "GET " + srv.URL + `/x/{{rand.choice "c d"}}`} {
			mu.Lock()
			got = nil
			mu.Unlock()
			o := DefaultOptions()
			o.Client = client
			o.Schedule = sched(t, "100/s", 30*time.Millisecond)
			rs, _ := run(t, context.Background(), parse(t, tgt+"\n"), o)
			for _, r := range rs {
				if r.Code != 200 {
					t.Fatalf("%s %q: %d %s", client, tgt, r.Code, r.Error)
				}
			}
			mu.Lock()
			for _, uri := range got {
				if strings.Contains(uri, " ") || !strings.Contains(uri, "%20") {
					t.Errorf("%s %q: server saw %q", client, tgt, uri)
				}
			}
			mu.Unlock()
		}
	}
}

// Header injection: a value with CR/LF, or a name that is not a token, is
// refused when the targets are read, naming the target, in both formats.
func TestHeaderInjectionRefused(t *testing.T) {
	for _, in := range []string{
		"{\"method\": \"GET\", \"url\": \"http://127.0.0.1:1/\", \"header\": {\"X\": [\"a\\r\\nInjected: 1\"]}}\n",
		"{\"method\": \"GET\", \"url\": \"http://127.0.0.1:1/\", \"header\": {\"X\": [\"a\\rb\"]}}\n",
		"{\"method\": \"GET\", \"url\": \"http://127.0.0.1:1/\", \"header\": {\"Bad Name\": [\"v\"]}}\n",
		"{\"method\": \"GET\", \"url\": \"http://127.0.0.1:1/\", \"header\": {\"X\\r\\nY\": [\"v\"]}}\n",
	} {
		_, err := targets.ReadAll(strings.NewReader(in), targets.Options{Format: targets.JSON})
		if err == nil || !strings.Contains(err.Error(), ":1: header") {
			t.Errorf("%q: %v", in, err)
		}
	}
}
