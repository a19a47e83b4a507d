package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/loadlab/loadlab/internal/results"
)

var start = time.Unix(1_795_296_174, 0)

// loadlabRun makes n results at 100/s: on time, 2ms latency, except a stall
// that sends requests 40..49 50ms late, two drops and one 503.
func loadlabRun(n int) []results.Result {
	var rs []results.Result
	for i := 0; i < n; i++ {
		due := start.Add(time.Duration(i) * 10 * time.Millisecond)
		r := results.Result{
			Attack: "search", Seq: uint64(i), Due: due, Sent: due.Add(20 * time.Microsecond),
			Latency: 2 * time.Millisecond, Code: 200, BytesIn: 1024, Method: "GET",
			URL: "http://127.0.0.1:8080/search?q={{rand.letters 50}}", Step: uint32(i * 3 / n),
		}
		if i >= 40 && i < 50 {
			r.Sent = due.Add(50 * time.Millisecond)
		}
		if i == 60 || i == 61 {
			r.Sent, r.Latency, r.Code, r.BytesIn, r.Error = due, 0, 0, 0, results.DroppedPrefix+"max-workers reached"
		}
		if i == 70 {
			r.Code, r.Error = 503, "503 Service Unavailable"
		}
		rs = append(rs, r)
	}
	return rs
}

func stream(t *testing.T, rs []results.Result) []byte {
	t.Helper()
	var buf bytes.Buffer
	w, err := results.NewWriter(&buf, results.Meta{})
	if err != nil {
		t.Fatal(err)
	}
	for i := range rs {
		if err := w.Encode(&rs[i]); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func report(t *testing.T, data []byte, o Options) (string, *Merge) {
	t.Helper()
	src, err := results.OpenReader(bytes.NewReader(data), "run.bin")
	if err != nil {
		t.Fatal(err)
	}
	m := NewMerge(Input{Name: "run.bin", Dec: src})
	var out bytes.Buffer
	if _, err := Run(&out, m, o); err != nil {
		t.Fatal(err)
	}
	return out.String(), m
}

func TestTextAdditions(t *testing.T) {
	out, _ := report(t, stream(t, loadlabRun(300)), Options{Kind: KindText})
	for _, want := range []string{
		"Requests      [total, rate, throughput]         300, ",
		"Latencies     [min, mean, 50, 90, 95, 99, max]  2.02ms, ",
		", 52ms\n", // the stalled requests waited 52ms from their due time
		"Send Latencies  [min, mean, 50, 90, 95, 99, max]  2ms, 2ms, 2ms, 2ms, 2ms, 2ms, 2ms\n",
		"Schedule Lag    [late, mean, 99, max]             10, ",
		"Dropped         [total, ratio]                    2, 0.67%\n",
		"Status Codes  [code:count]                      0:2  200:297  503:1  \n",
		"\nStep  Requests",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q in:\n%s", want, out)
		}
	}
	if strings.Contains(out, "\nAttack  ") || strings.Contains(out, "\nTarget  ") {
		t.Errorf("single-group breakdowns printed:\n%s", out)
	}
}

func TestJSONExtras(t *testing.T) {
	out, _ := report(t, stream(t, loadlabRun(300)), Options{Kind: KindJSON})
	var j struct {
		Latencies     struct{ Max int64 }   `json:"latencies"`
		SendLatencies *struct{ Max int64 }  `json:"send_latencies"`
		Lag           struct{ Late uint64 } `json:"lag"`
		Dropped       uint64                `json:"dropped"`
		LatencyBasis  string                `json:"latency_basis"`
		ByStep        []struct {
			Key      string `json:"key"`
			Requests uint64 `json:"requests"`
		} `json:"by_step"`
	}
	if err := json.Unmarshal([]byte(out), &j); err != nil {
		t.Fatal(err)
	}
	if j.Latencies.Max != int64(52*time.Millisecond) || j.SendLatencies == nil || j.SendLatencies.Max != int64(2*time.Millisecond) ||
		j.Lag.Late != 10 || j.Dropped != 2 || j.LatencyBasis != "due" || len(j.ByStep) != 3 || j.ByStep[0].Requests != 100 {
		t.Fatalf("extras wrong: %+v\n%s", j, out)
	}
}

func TestEveryJSONLines(t *testing.T) {
	out, _ := report(t, stream(t, loadlabRun(250)), Options{Kind: KindJSON, Every: time.Second})
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 3 {
		t.Fatalf("%d lines, want 3 intervals:\n%s", len(lines), out)
	}
	var total uint64
	for i, l := range lines {
		var j struct {
			Requests uint64    `json:"requests"`
			Rate     float64   `json:"rate"`
			Start    time.Time `json:"interval_start"`
		}
		if err := json.Unmarshal([]byte(l), &j); err != nil {
			t.Fatal(err)
		}
		if !j.Start.Equal(start.Add(time.Duration(i) * time.Second)) {
			t.Errorf("interval %d starts %v", i, j.Start)
		}
		if i < 2 && (j.Requests != 100 || j.Rate != 100) {
			t.Errorf("interval %d: %d requests at %v/s, want 100 (not cumulative)", i, j.Requests, j.Rate)
		}
		total += j.Requests
	}
	if total != 250 {
		t.Fatalf("intervals hold %d requests, want 250", total)
	}
}

func TestEveryTextTable(t *testing.T) {
	out, _ := report(t, stream(t, loadlabRun(250)), Options{Kind: KindText, Every: time.Second})
	lines := strings.Split(out, "\n")
	if !strings.HasPrefix(lines[0], "Interval  ") || !strings.HasPrefix(lines[1], "2026-11-21T21:22:54.000Z  100 ") ||
		!strings.Contains(out, "\nWhole run:\nRequests      [total, rate, throughput]         250,") {
		t.Fatalf("unexpected table:\n%s", out)
	}
	if len(lines[1]) != len(lines[2]) {
		t.Errorf("rows not aligned:\n%s\n%s", lines[1], lines[2])
	}
}

func TestTornAndCorruptInputsWarn(t *testing.T) {
	rs := loadlabRun(9000) // 3 blocks of at most 4096 results
	data := stream(t, rs)
	last := bytes.LastIndex(data, []byte("LLSYNC2")) - 1 // the sync marker opening the last block
	bad := bytes.Clone(data)
	bad[last+40] ^= 0xff
	for _, tc := range []struct {
		name    string
		data    []byte
		torn    bool
		results string
	}{
		{"torn", data[:len(data)-3], true, "8192, "},
		{"corrupt", bad, false, "8192, "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, m := report(t, tc.data, Options{Kind: KindText})
			if !strings.HasPrefix(out, "Requests      [total, rate, throughput]         "+tc.results) {
				t.Fatalf("report of what precedes the damage:\n%s", out)
			}
			if len(m.Warnings) != 1 || m.Warnings[0].Err.Torn != tc.torn || m.Warnings[0].Err.Offset != int64(last) || m.Corrupt() == tc.torn {
				t.Fatalf("warnings %+v", m.Warnings)
			}
			msg := m.Warnings[0].String()
			if !strings.Contains(msg, fmt.Sprintf("byte offset %d", last)) || !strings.Contains(msg, "8192 results before it") {
				t.Fatalf("warning %q", msg)
			}
		})
	}
}

func TestHistBelowFirstBucket(t *testing.T) {
	kind, bs, err := ParseType("hist[1ms,3ms]")
	if err != nil || kind != KindHist {
		t.Fatal(kind, err)
	}
	rs := loadlabRun(100)
	rs[5].Sent, rs[5].Latency = rs[5].Due, 500*time.Microsecond
	out, _ := report(t, stream(t, rs), Options{Kind: kind, Buckets: bs})
	want := "Bucket         #   %       Histogram\n" +
		"[1ms,   3ms]   87  88.78%  " + strings.Repeat("#", 66) + "\n" +
		"[3ms,   +Inf]  10  10.20%  #######\n" +
		"(1 requests below 1ms, the first bucket, are not in the table)\n"
	if out != want {
		t.Fatalf("got:\n%s\nwant:\n%s", out, want)
	}
}

func TestParseTypeErrors(t *testing.T) {
	for _, s := range []string{"html", "hist", "hist[", "hist[5ms,1ms]", ""} {
		if _, _, err := ParseType(s); err == nil {
			t.Errorf("%q accepted", s)
		}
	}
}

func TestEmptyInputEveryType(t *testing.T) {
	for _, typ := range []string{"text", "json", "hdrplot", "hist[0,1ms]"} {
		kind, bs, err := ParseType(typ)
		if err != nil {
			t.Fatal(err)
		}
		out, _ := report(t, nil, Options{Kind: kind, Buckets: bs})
		if strings.Contains(out, "NaN") || len(out) == 0 {
			t.Errorf("%s of nothing:\n%s", typ, out)
		}
	}
	out, _ := report(t, nil, Options{Kind: KindText})
	if !strings.HasPrefix(out, "Requests      [total, rate, throughput]         0, 0.00, 0.00\n") {
		t.Errorf("text of nothing:\n%s", out)
	}
}

// TestEveryPartialIntervals: a 200/s attack of 1 s that starts 905 ms into a
// wall-clock second gives intervals of 19 and 181 requests; both rows are
// marked partial with the span covered, and their rates read 200/s, not 19
// and 181, in text and in JSON.
func TestEveryPartialIntervals(t *testing.T) {
	var rs []results.Result
	for i := range 200 {
		due := start.Add(905*time.Millisecond + time.Duration(i)*5*time.Millisecond)
		rs = append(rs, results.Result{Seq: uint64(i), Due: due, Sent: due, Latency: time.Millisecond, Code: 200,
			Method: "GET", URL: "http://127.0.0.1:8080/"})
	}
	data := stream(t, rs)
	out, _ := report(t, data, Options{Kind: KindText, Every: time.Second})
	lines := strings.Split(out, "\n")
	for i, want := range []string{"19  ", "181  "} {
		row := lines[1+i]
		f := strings.Fields(row)
		if f[1]+"  " != want || f[2] != "200.00" || !strings.HasSuffix(row, []string{"partial: 95ms", "partial: 905ms"}[i]) {
			t.Errorf("row %d: %q; want %srequests at 200.00/s, marked partial", i, row, want)
		}
	}
	if !strings.Contains(out, "(partial: the run started or ended inside that interval") {
		t.Errorf("no note on partial intervals:\n%s", out)
	}
	js, _ := report(t, data, Options{Kind: KindJSON, Every: time.Second})
	dec := json.NewDecoder(strings.NewReader(js))
	for i := 0; dec.More(); i++ {
		var j struct {
			Requests uint64        `json:"requests"`
			Rate     float64       `json:"rate"`
			Partial  bool          `json:"partial"`
			Covered  time.Duration `json:"interval_covered"`
		}
		if err := dec.Decode(&j); err != nil {
			t.Fatal(err)
		}
		if !j.Partial || j.Rate < 199.99 || j.Rate > 200.01 || j.Covered <= 0 {
			t.Errorf("JSON interval %d: %+v; want partial at 200/s", i, j)
		}
	}
}
