package results

import (
	"bytes"
	"fmt"
	"io"
	"reflect"
	"testing"
	"time"
)

// flowSample makes n results of a 4-step flow: sessions of four requests
// interleaved as overlapping sessions interleave, a failed check now and
// then, and each session's outcome on its last result.
func flowSample(n int) []Result {
	steps := []*FlowStep{
		NewFlowStep("login", []string{"status 200", "json $.token exists"}),
		NewFlowStep("browse/home", []string{"status 200"}),
		NewFlowStep("browse/search", nil),
		NewFlowStep("logout", []string{"status 204"}),
	}
	start := time.Unix(1_795_296_179, 0)
	out := make([]Result, 0, n)
	for i := 0; len(out) < n; i++ {
		// session s = i/4 runs step i%4; sessions overlap by 3
		s := uint64(i/4) ^ uint64(i%3)
		k := i % 4
		due := start.Add(time.Duration(i) * time.Millisecond)
		r := Result{
			Attack: "shop", Seq: uint64(i), Due: due, Sent: due.Add(20 * time.Microsecond),
			Latency: 3*time.Millisecond + time.Duration(i%7)*time.Microsecond, Code: 200, BytesIn: 512,
			Method: "GET", URL: fmt.Sprintf("http://127.0.0.1:8080/%d", k),
			FlowStep: steps[k], Session: s,
		}
		if i%50 == 0 {
			r.Failed = 1
		}
		if k == 3 {
			r.Ended = SessionEnd{Outcome: Completed, Duration: 12*time.Millisecond + time.Duration(i)}
		}
		if i%97 == 0 {
			r.Ended = SessionEnd{Outcome: FailedPrefix + "check login: status 200", Duration: time.Millisecond}
		}
		out = append(out, r)
	}
	return out
}

func TestFlowRecordsRoundTrip(t *testing.T) {
	in := flowSample(10_000)
	var buf bytes.Buffer
	w, err := NewWriter(&buf, Meta{Attack: "shop", Flow: "shop", Created: time.Unix(1, 0)})
	if err != nil {
		t.Fatal(err)
	}
	for i := range in {
		if err := w.Encode(&in[i]); err != nil {
			t.Fatal(err)
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
		if got.FlowStep == nil || got.FlowStep.Name != want.FlowStep.Name || !reflect.DeepEqual(got.FlowStep.Checks, want.FlowStep.Checks) && len(want.FlowStep.Checks) > 0 {
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
	t.Logf("%.2f bytes per flow request", perReq)
	if perReq > 12 {
		t.Errorf("%.2f bytes per flow request, want at most 12", perReq)
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
