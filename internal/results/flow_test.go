package results

import (
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"reflect"
	"sort"
	"testing"
	"time"
)

// flowSample makes the results of a 4-step journey (login, two pages and
// a search) as a real run records them: sessions arriving at 200/s, each
// request due when the answer before it came (no think time), latencies
// of a few hundred µs to a few ms, send lags of tens of µs, results in
// completion order, now and then a failed check that stops a session.
func flowSample(n int) []Result {
	rng := rand.New(rand.NewPCG(3, 4))
	steps := []*FlowStep{
		NewFlowStep("login", []string{"status 200", "json $.token exists"}),
		NewFlowStep("browse/home", []string{"status 200"}),
		NewFlowStep("browse/search", nil),
		NewFlowStep("browse/item", []string{"status 200"}),
	}
	start := time.Unix(1_795_296_179, 519_438_910)
	var out []Result
	var seq uint64
	for s := uint64(0); len(out) < n; s++ {
		due := start.Add(time.Duration(s) * 5 * time.Millisecond)
		first := due
		for k, st := range steps {
			sent := due.Add(time.Duration(20_000 + rng.IntN(60_000)))
			r := Result{
				Attack: "shop", Seq: seq, Due: due, Sent: sent,
				Latency: time.Duration(200_000 + rng.ExpFloat64()*800_000), Code: 200, BytesIn: 512 + uint64(rng.IntN(3)),
				Method: "GET", URL: fmt.Sprintf("http://127.0.0.1:8080/%d", k), FlowStep: st, Session: s,
			}
			seq++
			if k == 0 {
				r.Method, r.BytesOut = "POST", 34
			}
			stop := rng.IntN(200) == 0 && len(st.Checks) > 0
			if stop {
				r.Failed, r.Code, r.Error = 1, 500, "500 Internal Server Error"
			}
			if stop || k == len(steps)-1 {
				r.Ended = SessionEnd{Outcome: Completed, Duration: r.End().Sub(first)}
				if stop {
					r.Ended.Outcome = FailedPrefix + "check " + st.Name + ": status 200"
				}
			}
			out = append(out, r)
			due = r.End()
			if stop {
				break
			}
		}
	}
	out = out[:n]
	sort.SliceStable(out, func(i, j int) bool { return out[i].End().Before(out[j].End()) })
	return out
}

func TestFlowRecordsRoundTrip(t *testing.T) {
	in := flowSample(100_000)
	var buf bytes.Buffer
	w, err := NewWriter(&buf, Meta{Attack: "shop", Flow: "shop", Created: time.Unix(1, 0)})
	if err != nil {
		t.Fatal(err)
	}
	for i := range in {
		if err := w.Encode(&in[i]); err != nil {
			t.Fatal(err)
		}
		if i%200 == 199 {
			w.Flush() // as an attack at 800 requests/s flushes every 250 ms
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	rd, err := NewReader(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	if rd.Meta().Version != FlowVersion || rd.Meta().Flow != "shop" {
		t.Fatalf("header: version %d flow %q", rd.Meta().Version, rd.Meta().Flow)
	}
	for i := range in {
		var got Result
		if err := rd.Decode(&got); err != nil {
			t.Fatalf("result %d: %v", i, err)
		}
		want := in[i]
		want.Target = got.Target
		if got.FlowStep == nil || got.FlowStep.Name != want.FlowStep.Name || len(want.FlowStep.Checks) > 0 && !reflect.DeepEqual(got.FlowStep.Checks, want.FlowStep.Checks) {
			t.Fatalf("result %d: step %+v, want %+v", i, got.FlowStep, want.FlowStep)
		}
		got.FlowStep, want.FlowStep = nil, nil
		got.Due, want.Due = got.Due.UTC(), want.Due.UTC()
		got.Sent, want.Sent = got.Sent.UTC(), want.Sent.UTC()
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("result %d:\n got %+v\nwant %+v", i, got, want)
		}
	}
	var extra Result
	if err := rd.Decode(&extra); err != io.EOF {
		t.Fatalf("after the last result: %v", err)
	}
	perReq := float64(buf.Len()) / float64(len(in))
	// the same results without their flow fields, as a plain attack's
	var plain bytes.Buffer
	pw, _ := NewWriter(&plain, Meta{Attack: "shop", Created: time.Unix(1, 0)})
	for i := range in {
		r := in[i]
		r.FlowStep, r.Ended = nil, SessionEnd{}
		pw.Encode(&r)
		if i%200 == 199 {
			pw.Flush()
		}
	}
	pw.Close()
	perPlain := float64(plain.Len()) / float64(len(in))
	t.Logf("%.2f bytes per flow request; %.2f without the flow fields", perReq, perPlain)
	if perReq > 12 || perReq > perPlain+1 {
		t.Errorf("%.2f bytes per flow request (%.2f without the flow fields), want at most 12, and at most 1 more", perReq, perPlain)
	}
}

// A plain attack's stream is written exactly as before the flow fields:
// version 2, which loadlab versions without flows read.
func TestPlainStreamStaysVersion2(t *testing.T) {
	data := encodeAll(t, sample(100, 1000))
	rd, err := NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	if v := rd.Meta().Version; v != 2 {
		t.Fatalf("plain stream version %d, want 2", v)
	}
}

// encodeFlow writes rs as a flow's stream, a block every 200 results.
func encodeFlow(t testing.TB, rs []Result) []byte {
	t.Helper()
	var buf bytes.Buffer
	w, err := NewWriter(&buf, Meta{Attack: "shop", Flow: "shop", Created: time.Unix(1, 0)})
	if err != nil {
		t.Fatal(err)
	}
	for i := range rs {
		if err := w.Encode(&rs[i]); err != nil {
			t.Fatal(err)
		}
		if i%200 == 199 {
			w.Flush()
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}
