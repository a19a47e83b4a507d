package summary

import (
	"encoding/json"
	"math"
	"os"
	"reflect"
	"testing"
	"time"

	"github.com/loadlab/loadlab/internal/metrics"
)

// readFile decodes a summary.json by its path.
func readFile(t testing.TB, file string) *Summary {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var s Summary
	if err := json.Unmarshal(data, &s); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	return &s
}

// testdata/breaker-model-v*-summary.json hold the predictions of
// examples/002-pool-drain-breaker's two steps (seed 1), version 1 made by
// loadlab before the prediction had one type (commit b065362), version 2
// by this one: read, the old file says all it kept as the new one says
// it, the breaker's story and first opening included.
func TestModelVersion1ReadsAsVersion2(t *testing.T) {
	v1 := readFile(t, "testdata/breaker-model-v1-summary.json")
	v2 := readFile(t, "testdata/breaker-model-v2-summary.json")
	if len(v1.Steps) != 2 || len(v2.Steps) != 2 {
		t.Fatalf("steps: %d and %d, want 2", len(v1.Steps), len(v2.Steps))
	}
	opened := false
	for i := range v1.Steps {
		old, cur := v1.Steps[i].Model, v2.Steps[i].Model
		if old.Version != StepModelVersion || cur.Version != StepModelVersion {
			t.Errorf("step %d: versions %d and %d after reading, want %d", i, old.Version, cur.Version, StepModelVersion)
		}
		if len(old.Scenarios) != 1 || len(cur.Scenarios) != 1 || len(old.Pools) != 1 || len(cur.Pools) != 1 ||
			len(old.Breakers) != 1 || len(cur.Breakers) != 1 || len(old.Closed) != 1 || len(cur.Closed) != 1 {
			t.Fatalf("step %d: the files' predictions differ in shape:\n%+v\n%+v", i, old, cur)
		}
		o, c := old.Scenarios[0], cur.Scenarios[0]
		if o.Name != c.Name || o.Requests != c.Requests || o.Success != c.Success || o.Latencies != c.Latencies ||
			o.MaxCheckoutWait != c.MaxCheckoutWait || !reflect.DeepEqual(o.StatusCodes, c.StatusCodes) || !reflect.DeepEqual(o.Answered, c.Answered) {
			t.Errorf("step %d scenario:\nversion 1 %+v\nversion 2 %+v", i, o, c)
		}
		if c.Latencies.P99 == 0 || c.Requests == 0 {
			t.Errorf("step %d: an empty prediction %+v", i, c)
		}
		op, cp := old.Pools[0], cur.Pools[0]
		cp.T, cp.InUse, cp.OverflowInUse, cp.Waiting, cp.Mailbox = nil, nil, nil, nil, nil // version 1 kept no series
		if !reflect.DeepEqual(op, cp) {
			t.Errorf("step %d pool:\nversion 1 %+v\nversion 2 %+v", i, op, cp)
		}
		ob, cb := old.Breakers[0], cur.Breakers[0]
		if ob.Route != cb.Route || ob.Rejected != cb.Rejected || ob.Story() != cb.Story() || ob.FirstOpen() != cb.FirstOpen() {
			t.Errorf("step %d breaker: version 1 %q opened %v, version 2 %q opened %v", i, ob.Story(), ob.FirstOpen(), cb.Story(), cb.FirstOpen())
		}
		opened = opened || cb.FirstOpen() > 0
		if !reflect.DeepEqual(old.Closed, cur.Closed) || !reflect.DeepEqual(old.Notes, cur.Notes) || !reflect.DeepEqual(old.Fragile, cur.Fragile) {
			t.Errorf("step %d closed forms, notes or fragile differ:\n%+v\n%+v", i, old, cur)
		}
	}
	if !opened {
		t.Error("the breaker never opened: the files do not test a story")
	}
}

// Real runs written before the prediction and the latencies had one type
// (a capacity search of examples/005 and a sweep of two builds) read with
// their figures, measured and predicted, and what is written again (as
// run -rewrite does) reads back the same.
func TestModelOfOldRunsRoundTrips(t *testing.T) {
	for _, file := range []string{"../testdata/capacity-summary.json", "../../compare/testdata/run-001/summary.json"} {
		s := readFile(t, file)
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		var raw struct {
			Steps []struct {
				Scenarios []struct {
					Latency seconds4 `json:"latency_seconds"`
					Send    seconds4 `json:"send_latency_seconds"`
				} `json:"scenarios"`
				Model struct {
					Scenarios []struct {
						Name    string `json:"name"`
						Latency struct {
							P50 float64 `json:"p50"`
							P99 float64 `json:"p99"`
						} `json:"latency_seconds"`
					} `json:"scenarios"`
					Pools []struct {
						Checkout float64 `json:"checkout_timeout_seconds"`
					} `json:"pools"`
				} `json:"model"`
			} `json:"steps"`
		}
		if err := json.Unmarshal(data, &raw); err != nil {
			t.Fatal(err)
		}
		seen := 0
		for i, st := range s.Steps {
			for j, sc := range st.Scenarios {
				w := raw.Steps[i].Scenarios[j]
				for k, l := range map[string]struct {
					got                metrics.LatencySummary
					min, p50, p99, max float64
				}{"latencies": {sc.Latency, w.Latency.Min, w.Latency.P50, w.Latency.P99, w.Latency.Max},
					"send latencies": {sc.SendLatency, w.Send.Min, w.Send.P50, w.Send.P99, w.Send.Max}} {
					if !near(l.got.Min, l.min) || !near(l.got.P50, l.p50) || !near(l.got.P99, l.p99) || !near(l.got.Max, l.max) || l.got.P99 == 0 {
						t.Errorf("%s step %d scenario %s: %s %+v, the file says min %vs p50 %vs p99 %vs max %vs", file, i, sc.Name, k, l.got, l.min, l.p50, l.p99, l.max)
					}
				}
			}
			rm := raw.Steps[i].Model
			if st.Model == nil || len(rm.Scenarios) == 0 {
				continue
			}
			seen++
			for j, sc := range st.Model.Scenarios {
				want := rm.Scenarios[j]
				if sc.Name != want.Name || !near(sc.Latencies.P50, want.Latency.P50) || !near(sc.Latencies.P99, want.Latency.P99) || sc.Latencies.P99 == 0 {
					t.Errorf("%s step %d: scenario %q p50 %v p99 %v, the file says %q %vs %vs", file, i, sc.Name, sc.Latencies.P50, sc.Latencies.P99, want.Name, want.Latency.P50, want.Latency.P99)
				}
			}
			for j, p := range st.Model.Pools {
				if !near(p.CheckoutTimeout, rm.Pools[j].Checkout) || p.CheckoutTimeout == 0 {
					t.Errorf("%s step %d: pool %s checkout timeout %v, the file says %vs", file, i, p.Pool, p.CheckoutTimeout, rm.Pools[j].Checkout)
				}
			}
		}
		if seen == 0 {
			t.Fatalf("%s: no step has a prediction", file)
		}
		again, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		var back Summary
		if err := json.Unmarshal(again, &back); err != nil {
			t.Fatal(err)
		}
		for i := range s.Steps {
			if !reflect.DeepEqual(s.Steps[i].Scenarios, back.Steps[i].Scenarios) {
				t.Errorf("%s step %d: written again, the measured figures read back otherwise", file, i)
			}
			if !reflect.DeepEqual(s.Steps[i].Model, back.Steps[i].Model) {
				t.Errorf("%s step %d: written again, the prediction reads back otherwise:\n%+v\n%+v", file, i, s.Steps[i].Model, back.Steps[i].Model)
			}
		}
	}
}

// seconds4 are the latencies in seconds the tests compare with.
type seconds4 struct {
	Min float64 `json:"min"`
	P50 float64 `json:"p50"`
	P99 float64 `json:"p99"`
	Max float64 `json:"max"`
}

// near says whether d is s seconds, to the nanosecond.
func near(d time.Duration, s float64) bool {
	return math.Abs(d.Seconds()-s) <= 1e-9
}

// A model newer than this loadlab reads is refused, not misread.
func TestModelNewerVersionRefused(t *testing.T) {
	var m StepModel
	if err := json.Unmarshal([]byte(`{"version": 3, "scenarios": [{"scenario": "a"}]}`), &m); err == nil {
		t.Errorf("version 3 read as %+v", m)
	}
}

// rawSteps reads the steps of summary.json files as raw JSON, for fuzz
// seeds.
func rawSteps(f *testing.F, files ...string) []map[string]json.RawMessage {
	var out []map[string]json.RawMessage
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		var raw struct {
			Steps []map[string]json.RawMessage `json:"steps"`
		}
		if err := json.Unmarshal(data, &raw); err != nil {
			f.Fatal(err)
		}
		out = append(out, raw.Steps...)
	}
	return out
}

// writesStably checks that v, written, reads back into fresh (a pointer
// to a zero value of v's type) and writes again the same.
func writesStably(t *testing.T, v, fresh any) {
	out, err := json.Marshal(v)
	if err != nil {
		t.Fatalf("%+v does not write: %v", v, err)
	}
	if err := json.Unmarshal(out, fresh); err != nil {
		t.Fatalf("%s does not read back: %v", out, err)
	}
	if again, err := json.Marshal(fresh); err != nil || string(again) != string(out) {
		t.Fatalf("read back otherwise (%v):\n%s\n%s", err, out, again)
	}
}

// FuzzStepModel: whatever a step's model reads as (either version), it
// writes as version 2, and that reads back and writes again the same.
func FuzzStepModel(f *testing.F) {
	for _, st := range rawSteps(f, "testdata/breaker-model-v1-summary.json", "testdata/breaker-model-v2-summary.json") {
		f.Add([]byte(st["model"]))
	}
	f.Add([]byte(`{"error": "no origin"}`))
	f.Add([]byte(`{"breakers": [{"route": "r", "states": "closed, open at 1m2.5s, bogus"}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var m StepModel
		if json.Unmarshal(data, &m) == nil {
			writesStably(t, &m, &StepModel{})
		}
	})
}

// FuzzScenarioResult: whatever a scenario's measured figures read as
// (latencies in either shape), they write in the current shape, and that
// reads back and writes again the same.
func FuzzScenarioResult(f *testing.F) {
	for _, st := range rawSteps(f, "../../compare/testdata/run-001/summary.json", "../testdata/capacity-summary.json") {
		var scs []json.RawMessage
		if err := json.Unmarshal(st["scenarios"], &scs); err != nil {
			f.Fatal(err)
		}
		for _, sc := range scs {
			f.Add([]byte(sc))
		}
	}
	f.Add([]byte(`{"name": "a", "latencies": {"50th": 5, "min": 1}, "send_latency_seconds": {"p50": 0.5}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var sc ScenarioResult
		if json.Unmarshal(data, &sc) == nil {
			writesStably(t, &sc, &ScenarioResult{})
		}
	})
}
