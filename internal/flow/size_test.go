package flow

import (
	"bytes"
	"testing"
	"time"

	"github.com/loadlab/loadlab/internal/results"
)

// A flow's results stay at most 12 bytes a request on disk: a 4-step
// journey (a JSON login whose token is captured, a page with the bearer
// token, a search with a value from a data file, an item) against a real
// server, written as the attack writes its stream.
func TestFlowResultsBytesPerRequest(t *testing.T) {
	s := newSite(t)
	f := writeFlow(t, s.URL, map[string]string{"flow.yaml": `
data: users.csv
steps:
  - name: login
    request:
      method: POST
      url: URL/login
      headers: {Content-Type: application/json}
      body: '{"user":"{{user}}","password":"{{password}}"}'
    capture: [{var: token, json: "$.token"}]
    check: [{status: 200}]
  - name: home
    request: {url: "URL/home", headers: {Authorization: "Bearer {{token}}"}}
    check: [{status: 200}]
  - name: search
    request: {url: "URL/item?id={{query}}", headers: {Authorization: "Bearer {{token}}"}}
  - name: item
    request: {url: "URL/item?id=1", headers: {Authorization: "Bearer {{token}}"}}
`, "users.csv": "user,password,query\nann,secret,shoes\nben,secret,hats\ncid,secret,socks\n"})
	r := runFlow(t, f, "200/s", 3*time.Second, 1000, nil)
	if got := outcomes(r.res); got[results.Completed] != 600 {
		t.Fatalf("outcomes %v, want 600 completed", got)
	}
	var buf bytes.Buffer
	w, err := results.NewWriter(&buf, results.Meta{Attack: "journey", Flow: f.Name})
	if err != nil {
		t.Fatal(err)
	}
	for i := range r.res {
		if err := w.Encode(&r.res[i]); err != nil {
			t.Fatal(err)
		}
		if i%200 == 199 {
			w.Flush() // as the attack flushes every 250 ms at 800 requests/s
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	per := float64(buf.Len()) / float64(len(r.res))
	t.Logf("%d requests, %d bytes: %.2f bytes a request", len(r.res), buf.Len(), per)
	if per > 12 {
		t.Fatalf("%.2f bytes a request, want at most 12", per)
	}
}
