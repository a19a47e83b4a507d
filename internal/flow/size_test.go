package flow

import (
	"bytes"
	"testing"
	"time"

	"github.com/loadlab/loadlab/internal/results"
)

// A real run's results read back exactly as they were written, the due
// times written after the session's previous answer and the durations
// left to the reader included: a 4-step journey (a JSON login whose token
// is captured, a page with the bearer token, a search with a value from a
// data file, an item) against a real server, written as the attack
// writes its stream. Its size is logged (8.8 bytes a request on 8 Dec
// 2026; the timings decide: results/flow_test.go bounds the format's own
// cost).
func TestFlowResultsReadBackExactly(t *testing.T) {
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
	t.Logf("%d requests: %.2f bytes a request", len(r.res), float64(buf.Len())/float64(len(r.res)))
	rd, err := results.NewReader(&buf)
	if err != nil {
		t.Fatal(err)
	}
	for i := range r.res {
		var got results.Result
		if err := rd.Decode(&got); err != nil {
			t.Fatalf("result %d: %v", i, err)
		}
		want := &r.res[i]
		if !got.Due.Equal(want.Due) || !got.Sent.Equal(want.Sent) || got.Latency != want.Latency || got.Seq != want.Seq ||
			got.Session != want.Session || got.FlowStep.Name != want.FlowStep.Name || got.Failed != want.Failed || got.Ended != want.Ended {
			t.Fatalf("result %d read back as\n%+v\nwritten\n%+v", i, got, *want)
		}
	}
}
