package har

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// entry is a recorded request for a HAR made in a test.
type entry struct {
	at      int // ms after the start
	method  string
	url     string
	reqHdr  map[string]string
	body    string
	status  int
	mime    string
	respHdr map[string]string
	resp    string
}

func harOf(es ...entry) []byte {
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	hdrs := func(m map[string]string) []map[string]string {
		out := []map[string]string{}
		for k, v := range m {
			out = append(out, map[string]string{"name": k, "value": v})
		}
		return out
	}
	var list []any
	for _, e := range es {
		req := map[string]any{"method": e.method, "url": e.url, "headers": hdrs(e.reqHdr)}
		if e.body != "" {
			req["postData"] = map[string]string{"mimeType": "application/json", "text": e.body}
		}
		list = append(list, map[string]any{
			"startedDateTime": t0.Add(time.Duration(e.at) * time.Millisecond).Format(time.RFC3339Nano),
			"time":            10,
			"request":         req,
			"response": map[string]any{"status": e.status, "headers": hdrs(e.respHdr),
				"content": map[string]string{"mimeType": e.mime, "text": e.resp}},
		})
	}
	b, _ := json.Marshal(map[string]any{"log": map[string]any{"version": "1.2", "entries": list}})
	return b
}

func convert(t *testing.T, data []byte) (*Flow, flowFile) {
	t.Helper()
	rec, err := Read(data)
	if err != nil {
		t.Fatal(err)
	}
	f := Convert(rec, Options{})
	return f, decodeFlow(t, f.YAML("t.har"))
}

func TestCorrelationRules(t *testing.T) {
	const api = "http://shop.test"
	data := harOf(
		entry{at: 0, method: "GET", url: api + "/", status: 200, mime: "text/html", resp: "<html></html>"},
		// The user name goes out and comes back: the client knew it, no capture.
		// The session ID comes back in JSON and in a header, and as a cookie.
		entry{at: 500, method: "POST", url: api + "/login", body: `{"user":"ann-the-user"}`, status: 200, mime: "application/json",
			respHdr: map[string]string{"X-Request-Token": "hdr-token-1234567", "Set-Cookie": "sid=cookie-value-123456; Path=/"},
			resp:    `{"user":"ann-the-user","session":{"id":"sess-0123456789"},"short":"abc","list":[{"id":"first-item-001"},{"id":"second-item-02"}]}`},
		// Sent back in a query, a header, a body; the cookie by the jar.
		entry{at: 1500, method: "GET", url: api + "/cart?session=sess-0123456789", status: 200, mime: "application/json",
			reqHdr: map[string]string{"X-Token": "hdr-token-1234567", "Cookie": "sid=cookie-value-123456", "X-Short": "abc"}, resp: `{}`},
		entry{at: 1600, method: "POST", url: api + "/cart/items", body: `{"item":"second-item-02","note":"{{not a template}}","s":"sess-0123456789"}`,
			status: 201, mime: "application/json", resp: `{"id":"line-000000001"}`},
		// A "{" right before a value, and a value returned twice (the first answer is the capture).
		entry{at: 1700, method: "GET", url: api + "/x/{line-000000001}", status: 304, mime: "application/json", resp: `{"again":"sess-0123456789"}`},
	)
	_, f := convert(t, data)
	steps := f.Steps
	var reqs []int
	for i, s := range steps {
		if s.Request != nil {
			reqs = append(reqs, i)
		}
	}
	if len(reqs) != 5 {
		t.Fatalf("%d requests, want 5", len(reqs))
	}
	login, cart, add, last := steps[reqs[1]], steps[reqs[2]], steps[reqs[3]], steps[reqs[4]]
	got := map[string]string{}
	for _, c := range login.Capture {
		got[c.Var] = c.JSON + c.Header
	}
	want := map[string]string{"id": "$.session.id", "id_2": "$.list[1].id", "x_request_token": "X-Request-Token"}
	if len(got) != len(want) {
		t.Errorf("login captures %v, want %v", got, want)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("capture %s = %q, want %q (all: %v)", k, got[k], v, got)
		}
	}
	if cart.Request.URL != "http://shop.test/cart?session={{id}}" || cart.Request.Headers["X-Token"] != "{{x_request_token}}" || cart.Request.Headers["X-Short"] != "abc" {
		t.Errorf("cart request %+v", cart.Request)
	}
	if want := `{"item":"{{id_2}}","note":"{{"{{"}}not a template}}","s":"{{id}}"}`; add.Request.Body != want {
		t.Errorf("add body\n got %s\nwant %s", add.Request.Body, want)
	}
	if len(add.Capture) != 1 || add.Capture[0].Var != "id_3" || add.Check[0].Status != 201 {
		t.Errorf("add captures %+v checks %+v", add.Capture, add.Check)
	}
	if last.Request.URL != `http://shop.test/x/{{"{"}}{{id_3}}}` || len(last.Check) != 0 {
		t.Errorf("last request %s checks %+v (a recorded 304 is the browser's cache: no check)", last.Request.URL, last.Check)
	}
	for _, s := range steps {
		for _, c := range s.Capture {
			if strings.Contains(c.Var, "user") || strings.Contains(c.Header, "Cookie") {
				t.Errorf("captured %+v: the client sent it first, or the cookie jar has it", c)
			}
		}
	}
}

// A header recorded twice is one line; a header a request could not send
// (a bad name, a line break in its value) is left out.
func TestHeadersRecordedTwice(t *testing.T) {
	data := []byte(`{"log": {"entries": [{"startedDateTime": "2026-01-02T03:04:05Z", "request": {"url": "http://a.test/",
	  "headers": [{"name": "Accept", "value": "a/b"}, {"name": "accept", "value": "c/d"}, {"name": "Bad Name", "value": "x"},
	  {"name": "X-Split", "value": "1\r\nInjected: yes"}, {"name": "X-Ok", "value": "1"}]}}]}}`)
	_, f := convert(t, data)
	h := f.Steps[0].Request.Headers
	if len(h) != 2 || h["Accept"] != "a/b, c/d" || h["X-Ok"] != "1" {
		t.Errorf("headers %v", h)
	}
}

// A returned value is never put in a URL's scheme or host, nor right
// after the host (it would become part of it); elsewhere in the path or
// the query it is.
func TestURLPlaces(t *testing.T) {
	data := harOf(
		entry{at: 0, method: "GET", url: "http://a.test/", status: 200, mime: "application/json",
			resp: `{"next":"/page/2?x=1","host":"a.test/pa","dir":"folder-0123"}`},
		entry{at: 10, method: "GET", url: "http://a.test/page/2?x=1", status: 200},
		entry{at: 20, method: "GET", url: "http://a.test/files/folder-0123/x?d=folder-0123", status: 200},
	)
	_, f := convert(t, data)
	if got := f.Steps[1].Request.URL; got != "http://a.test/page/2?x=1" {
		t.Errorf("next link: %s", got)
	}
	if got := f.Steps[2].Request.URL; got != "http://a.test/files/{{dir}}/x?d={{dir}}" {
		t.Errorf("folder: %s", got)
	}
	if len(f.Steps[0].Capture) != 1 || f.Steps[0].Capture[0].Var != "dir" {
		t.Errorf("captures %+v, want dir only", f.Steps[0].Capture)
	}
}

func TestThinkTimes(t *testing.T) {
	data := harOf(
		entry{at: 0, method: "GET", url: "http://a.test/", status: 200, mime: "text/html"},
		entry{at: 5, method: "GET", url: "http://a.test/api/1", status: 200, mime: "application/json"},
		entry{at: 2510, method: "GET", url: "http://a.test/api/2", status: 200, mime: "application/json"},
		entry{at: 2560, method: "GET", url: "http://a.test/api/3", status: 200, mime: "application/json"},
	)
	_, f := convert(t, data)
	var kinds []string
	for _, s := range f.Steps {
		if s.Think != "" {
			kinds = append(kinds, "think "+s.Think)
		} else {
			kinds = append(kinds, "request")
		}
	}
	// Gaps from the end of the latest answer (each took 10 ms): 2.495 s
	// becomes a think step, 40 ms (under 100 ms) none.
	if got := strings.Join(kinds, ", "); got != "request, request, think 2.495s, request, request" {
		t.Errorf("steps: %s", got)
	}
}
