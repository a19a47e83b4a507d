package report

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/loadlab/loadlab/internal/metrics"
	"github.com/loadlab/loadlab/internal/results"
)

// TestBasisSend: -basis send puts the send-time latencies in the headline
// and the due-time ones on the extra line, in text and JSON.
func TestBasisSend(t *testing.T) {
	data := stream(t, loadlabRun(300))
	o := Options{Kind: KindText, Metrics: metrics.Options{Basis: metrics.FromSend}}
	out, _ := report(t, data, o)
	for _, want := range []string{
		"Latencies     [min, mean, 50, 90, 95, 99, max]  2ms, 2ms, 2ms, 2ms, 2ms, 2ms, 2ms\n",
		"Due Latencies  [min, mean, 50, 90, 95, 99, max]  2.02ms, ",
		"(Latencies run from the send time, as vegeta measures them (-basis send); Due Latencies from the due time.",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q in\n%s", want, out)
		}
	}
	o.Kind = KindJSON
	out, _ = report(t, data, o)
	var j struct {
		Latencies    struct{ Max int64 }  `json:"latencies"`
		DueLatencies *struct{ Max int64 } `json:"due_latencies"`
		LatencyBasis string               `json:"latency_basis"`
	}
	if err := json.Unmarshal([]byte(out), &j); err != nil {
		t.Fatal(err)
	}
	if j.LatencyBasis != "send" || j.Latencies.Max != int64(2*time.Millisecond) || j.DueLatencies == nil || j.DueLatencies.Max != int64(52*time.Millisecond) {
		t.Fatalf("basis send JSON: %+v\n%s", j, out)
	}
}

// TestMixedBases: a loadlab stream (due times) merged with a vegeta file
// (none) does not claim every latency runs from the due time; it names
// which input had due times and which did not.
func TestMixedBases(t *testing.T) {
	src, err := results.OpenReader(bytes.NewReader(stream(t, loadlabRun(300))), "attack.lll")
	if err != nil {
		t.Fatal(err)
	}
	var gob bytes.Buffer
	enc := results.NewGobEncoder(&gob)
	for _, r := range loadlabRun(100) {
		r.Due = time.Time{}
		if err := enc.Encode(&r); err != nil {
			t.Fatal(err)
		}
	}
	vsrc, err := results.OpenReader(&gob, "vegeta.bin")
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if _, err := Run(&out, NewMerge(Input{Name: "attack.lll", Dec: src}, Input{Name: "vegeta.bin", Dec: vsrc}), Options{Kind: KindText}); err != nil {
		t.Fatal(err)
	}
	want := "(Latencies run from the due time for attack.lll; vegeta.bin has no due times, so its latencies run from the send time."
	if !strings.Contains(out.String(), want) || strings.Contains(out.String(), "(Latencies run from the due time;") {
		t.Fatalf("want %q and not the all-inputs claim in\n%s", want, out.String())
	}
}
