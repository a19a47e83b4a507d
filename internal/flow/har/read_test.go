package har

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/loadlab/loadlab/internal/badinput"
)

func TestReadErrors(t *testing.T) {
	cases := []struct{ in, want string }{
		{"", "not JSON"},
		{"{\n\"log\": {\n\"entries\": [\n}", "line 4: not JSON"},
		{"<html>", "line 1: not JSON"},
		{`{"log": "x"}`, "not a HAR file: log is a JSON string"},
		{`[1, 2]`, "not a HAR file"},
		{`{"version": "1.2"}`, "log.entries: missing: not a HAR file"},
		{`{"log": {"pages": []}}`, "log.entries: missing"},
		{`{"log": {"entries": []}}`, "log.entries: no entries"},
		{`{"log": {"entries": [{"startedDateTime": "2026-01-02T03:04:05Z"}]}}`, "log.entries[0].request: missing"},
		{`{"log": {"entries": [{"startedDateTime": "yesterday", "request": {"url": "http://a/"}}]}}`, "log.entries[0].startedDateTime: want an ISO 8601 time"},
		{`{"log": {"entries": [{"startedDateTime": "2026-01-02T03:04:05Z", "request": {"url": "not a url"}}]}}`, "log.entries[0].request.url: not a URL"},
		{`{"log": {"entries": [{"startedDateTime": "2026-01-02T03:04:05Z", "request": {"method": "GE T", "url": "http://a/"}}]}}`, "log.entries[0].request.method: not an HTTP method"},
		{`{"log": {"entries": [{"startedDateTime": "2026-01-02T03:04:05Z", "request": {"url": "http://a/", "headers": "x"}}]}}`, "log.entries[0]: not a HAR entry"},
	}
	for _, c := range cases {
		_, err := Read([]byte(c.in))
		if err == nil || !badinput.Is(err) {
			t.Errorf("%.40s: err = %v, want bad input", c.in, err)
			continue
		}
		if msg := err.Error(); !strings.Contains(msg, c.want) || strings.Contains(msg, "\n") {
			t.Errorf("%.40s:\n got %q\nwant one line with %q", c.in, msg, c.want)
		}
	}
}

// smaller is the real recording cut to a seed the fuzzer mutates quickly
// (it spends minutes minimizing the new inputs it finds from a 24 kB one;
// run it with -fuzzminimizetime 1x): three entries, three headers each,
// short bodies.
func smaller(f *testing.F, data []byte) []byte {
	var h struct {
		Log struct {
			Entries []map[string]any `json:"entries"`
		} `json:"log"`
	}
	if err := json.Unmarshal(data, &h); err != nil {
		f.Fatal(err)
	}
	var keep []map[string]any
	for _, i := range []int{0, 4, 5} {
		e := h.Log.Entries[i]
		for _, part := range []string{"request", "response"} {
			m := e[part].(map[string]any)
			if hs, ok := m["headers"].([]any); ok && len(hs) > 3 {
				m["headers"] = hs[:3]
			}
			if c, ok := m["content"].(map[string]any); ok {
				if t, ok := c["text"].(string); ok && len(t) > 100 {
					c["text"] = t[:100]
				}
			}
		}
		keep = append(keep, e)
	}
	b, err := json.Marshal(map[string]any{"log": map[string]any{"entries": keep}})
	if err != nil {
		f.Fatal(err)
	}
	return b
}

// FuzzRead feeds the reader arbitrary bytes: it returns a recording or a
// bad-input error, never panics, and what it reads converts into a flow
// whose YAML decodes back in the flow file's shape.
func FuzzRead(f *testing.F) {
	real, err := os.ReadFile("testdata/login-browse.har")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(smaller(f, real))
	f.Add(harOf(entry{method: "POST", url: "http://a.test/{x}?q={{", body: `{"a":"{"}`, status: 200, mime: "application/json", resp: `{"t":"abcdefghij{"}`},
		entry{at: 300, method: "GET", url: "http://a.test/abcdefghij{", reqHdr: map[string]string{":path": "/", "X": "abcdefghij{"}, status: 200}))
	f.Add([]byte(`{"log": {"entries": []}}`))
	f.Add([]byte(`{"log": {"entries": [{"startedDateTime": "2026-01-02T03:04:05Z", "request": {"url": "data:,x"}}]}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		rec, err := Read(data)
		if err != nil {
			if !badinput.Is(err) || strings.Contains(err.Error(), "\n") {
				t.Fatalf("error %q is not one line of bad input", err)
			}
			return
		}
		fl := Convert(rec, Options{IncludeStatic: true})
		decodeFlow(t, fl.YAML("fuzz.har"))
	})
}
