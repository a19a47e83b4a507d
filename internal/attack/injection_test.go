package attack

import (
	"context"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/loadlab/loadlab/internal/targets"
)

// recorder is a loopback server keeping every request it receives.
type recorder struct {
	*httptest.Server
	mu   sync.Mutex
	reqs []*http.Request
}

func newRecorder(t *testing.T) *recorder {
	rec := &recorder{}
	rec.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec.mu.Lock()
		rec.reqs = append(rec.reqs, r.Clone(context.Background()))
		rec.mu.Unlock()
	}))
	t.Cleanup(rec.Close)
	return rec
}

func (rec *recorder) received() []*http.Request {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	return append([]*http.Request(nil), rec.reqs...)
}

// TestEveryTemplateFunctionOnTheWire renders every template function, in
// the URL and in header values, through both clients: the recording server
// receives exactly one request per result, each header once with a value
// of the function's alphabet, and nothing else.
func TestEveryTemplateFunctionOnTheWire(t *testing.T) {
	want := map[string]*regexp.Regexp{
		"X-Seq":     regexp.MustCompile(`^[0-9]+$`),
		"X-Int":     regexp.MustCompile(`^-?[0-9]$`),
		"X-Letters": regexp.MustCompile(`^[a-z]{8}$`),
		"X-Digits":  regexp.MustCompile(`^[0-9]{8}$`),
		"X-Hex":     regexp.MustCompile(`^[0-9a-f]{8}$`),
		"X-Alnum":   regexp.MustCompile(`^[a-zA-Z0-9]{8}$`),
		"X-Choice":  regexp.MustCompile("^(a|b c|d\te)$"),
		"X-Uuid":    regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`),
		"X-Quoted":  regexp.MustCompile(`^q \{\{ z$`),
	}
	path := regexp.MustCompile(`^/p/[0-9]+/[a-z]{3}\?i=-?[0-9]&d=[0-9]{4}&h=[0-9a-f]{4}&a=[a-zA-Z0-9]{4}&c=(x|y|z)&u=[0-9a-f-]{36}&q=lit$`)
	for _, client := range clients {
		t.Run(client, func(t *testing.T) {
			rec := newRecorder(t)
			src := "GET " + rec.URL + `/p/{{seq}}/{{rand.letters 3}}?i={{rand.int -5 5}}&d={{rand.digits 4}}&h={{rand.hex 4}}&a={{rand.alnum 4}}&c={{rand.choice x y "z"}}&u={{uuid}}&q={{"lit"}}` + "\n" +
				"X-Seq: {{seq}}\nX-Int: {{rand.int -9 9}}\nX-Letters: {{rand.letters 8}}\nX-Digits: {{rand.digits 8}}\n" +
				"X-Hex: {{rand.hex 8}}\nX-Alnum: {{rand.alnum 8}}\nX-Choice: {{rand.choice a \"b c\" \"d\\te\"}}\n" +
				"X-Uuid: {{uuid}}\nX-Quoted: q {{\"{{\"}} z\n"
			o := DefaultOptions()
			o.Client = client
			o.Schedule = sched(t, "200/s", 250*time.Millisecond)
			rs, _ := run(t, context.Background(), parse(t, src), o)
			if len(rs) != 50 {
				t.Fatalf("%d results, want 50", len(rs))
			}
			for _, r := range rs {
				if r.Code != 200 || r.Error != "" {
					t.Fatalf("result %+v", r)
				}
			}
			got := rec.received()
			if len(got) != len(rs) {
				t.Fatalf("server received %d requests for %d results", len(got), len(rs))
			}
			for _, r := range got {
				if !path.MatchString(r.RequestURI) {
					t.Errorf("request target %q", r.RequestURI)
				}
				for name, re := range want {
					if vs := r.Header.Values(name); len(vs) != 1 || !re.MatchString(vs[0]) {
						t.Errorf("%s = %q, want one value matching %s", name, vs, re)
					}
				}
				for name := range r.Header {
					if _, ok := want[name]; !ok && name != "User-Agent" && name != "Accept-Encoding" {
						t.Errorf("unexpected header %s: %q", name, r.Header[name])
					}
				}
			}
		})
	}
}

// TestUncheckedTargetNotInjected: a target built in code, bypassing the
// checks made when targets are read, still cannot inject: both clients
// refuse to send a rendered header value or Host holding CR or LF, and the
// recording server sees no injected header and no smuggled request.
func TestUncheckedTargetNotInjected(t *testing.T) {
	for _, client := range clients {
		for _, tc := range []struct{ name, method, hname, url, header string }{
			{"method", "GET / HTTP/1.1\r\nInjected: yes\r\nX:", "X-A", "/ok", "v"},
			{"header name", "GET", "Injected: yes\r\nX-A", "/ok", "v"},
			{"static header", "GET", "X-A", "/ok", `v` + "\r\n" + `Injected: yes`},
			{"quoted header", "GET", "X-A", "/ok", `{{"v\r\nInjected: yes"}}`},
			{"choice header", "GET", "X-A", "/ok", `{{rand.choice "ok\r\n\r\nGET /smuggled HTTP/1.1\r\nHost: evil"}}`},
			{"templated host", "GET", "X-A", `{{rand.choice "h\r\nInjected: yes"}}`, `v`},
		} {
			t.Run(client+"/"+tc.name, func(t *testing.T) {
				rec := newRecorder(t)
				url := rec.URL + tc.url
				if strings.HasPrefix(tc.url, "{{") {
					url = "http://" + tc.url + "/"
				}
				tg := &targets.Target{Method: tc.method, URL: targets.MustCompile(url),
					Header: []targets.Header{{Name: tc.hname, Value: targets.MustCompile(tc.header)}}}
				tr, _ := targets.NewRoundRobin([]*targets.Target{tg})
				o := DefaultOptions()
				o.Client = client
				o.Schedule = sched(t, "100/s", 100*time.Millisecond)
				rs, _ := run(t, context.Background(), tr, o)
				if len(rs) == 0 {
					t.Fatal("no results")
				}
				for _, r := range rs {
					if r.Error == "" || r.Code != 0 {
						t.Errorf("result sent: code %d, error %q", r.Code, r.Error)
					}
				}
				for _, r := range rec.received() {
					t.Errorf("server received %s %s %q", r.Method, r.RequestURI, r.Header)
				}
			})
		}
	}
}
