package sent

import (
	"strings"
	"testing"

	"github.com/loadlab/loadlab/internal/results"
	"github.com/loadlab/loadlab/internal/targets"
)

func readTargets(t *testing.T, in string) []*targets.Target {
	t.Helper()
	ts, err := targets.ReadAll(strings.NewReader(in), targets.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return ts
}

// Record keeps the templated targets only; New rebuilds them; Render
// gives what an attack's worker renders for the same seed, sequence
// number and part, whatever the order the parts are rendered in.
func TestRenderMatchesTheAttacksRendering(t *testing.T) {
	ts := readTargets(t, "GET http://a.test/static\n\nPOST http://a.test/s?q={{rand.letters 20}}\nX-Id: {{uuid}}\nX-Fixed: 1\n")
	ts[1].Body = targets.MustCompile(`{"n":{{rand.int 1 1000000}}}`)
	rec := Record(ts)
	if len(rec) != 1 || rec[0].Index != 1 || rec[0].URL != "http://a.test/s?q={{rand.letters 20}}" || len(rec[0].Header) != 2 || rec[0].Body == nil {
		t.Fatalf("Record = %+v", rec)
	}
	r, err := New(&results.Meta{Seed: 7, Templates: rec})
	if err != nil {
		t.Fatal(err)
	}
	rng := targets.NewRand(99)
	for seq := uint64(0); seq < 50; seq++ {
		// the attack's order for the std client: URL, body, headers
		wantBody := string(ts[1].Body.AppendSeeded(nil, rng, 7, seq, targets.PartBody))
		wantURL := string(ts[1].URL.AppendSeeded(nil, rng, 7, seq, targets.PartURL))
		wantID := string(ts[1].Header[0].Value.AppendSeeded(nil, rng, 7, seq, targets.PartHeader(0)))
		res := results.Result{Seq: seq, Target: 1, URL: ts[1].Source()}
		r.Render(&res)
		if res.URL != wantURL || string(res.SentBody) != wantBody || res.SentHeader.Get("X-Id") != wantID || res.SentHeader.Get("X-Fixed") != "1" {
			t.Fatalf("seq %d: rendered %q %v %q, the attack sent %q %q %q", seq, res.URL, res.SentHeader, res.SentBody, wantURL, wantID, wantBody)
		}
	}
	for _, res := range []results.Result{
		{Seq: 3, Target: 0, URL: "http://a.test/static"},                                // untemplated
		{Seq: 3, Target: 1, URL: ts[1].Source(), Error: "dropped: max-workers reached"}, // never sent
		{Seq: 3, Target: 1, URL: "http://other.test/{{seq}}"},                           // another file's target 1
	} {
		before := res.URL
		r.Render(&res)
		if res.URL != before || res.SentHeader != nil || res.SentBody != nil {
			t.Errorf("%+v was rendered", res)
		}
	}
}

func TestNewWithoutTemplatesOrBroken(t *testing.T) {
	if r, err := New(&results.Meta{}); r != nil || err != nil {
		t.Errorf("no templates: %v, %v", r, err)
	}
	if r, err := New(nil); r != nil || err != nil {
		t.Errorf("no meta: %v, %v", r, err)
	}
	_, err := New(&results.Meta{Seed: 1, Templates: []results.TemplatedTarget{{Index: 2, Method: "GET", URL: "http://a/{{nope}}"}}})
	if err == nil || !strings.Contains(err.Error(), "templated target 2") {
		t.Errorf("broken template: %v", err)
	}
}

// Record keeps no credential: a credential header's value, one named
// secret by the attack (-secret-header), a URL's password.
func TestRecordRedactsCredentials(t *testing.T) {
	ts := readTargets(t, "GET http://lab:url-pw@a.test/{{seq}}\nAuthorization: Bearer sk-1\nX-Sig: sig-2\nX-Plain: {{seq}}\n")
	rec := Record(ts, "x-sig")
	if len(rec) != 1 {
		t.Fatalf("Record = %+v", rec)
	}
	got := map[string]string{}
	for _, h := range rec[0].Header {
		got[h[0]] = h[1]
	}
	if got["Authorization"] != "REDACTED" || got["X-Sig"] != "REDACTED" || got["X-Plain"] != "{{seq}}" || strings.Contains(rec[0].URL, "url-pw") {
		t.Errorf("Record = URL %q, headers %v", rec[0].URL, got)
	}
}
