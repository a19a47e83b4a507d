package attackrun

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/loadlab/loadlab/internal/attack"
	"github.com/loadlab/loadlab/internal/attack/schedule"
	"github.com/loadlab/loadlab/internal/badinput"
	"github.com/loadlab/loadlab/internal/results"
	"github.com/loadlab/loadlab/internal/runblock"
	"github.com/loadlab/loadlab/internal/runblock/probe"
)

func job(t *testing.T, targetText string, out *bytes.Buffer, opened *bool) Job {
	t.Helper()
	s, err := schedule.Parse("100/s", 50*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	o := attack.DefaultOptions()
	o.Name, o.Schedule = "t", s
	return Job{Attacks: []Attack{{Targets: strings.NewReader(targetText), Options: o,
		Output: func() (io.Writer, error) { *opened = true; return out, nil }}}}
}

func TestRunWritesAReadableStream(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	defer srv.Close()
	var out bytes.Buffer
	var opened bool
	res := Run(context.Background(), job(t, "GET "+srv.URL+"/\n", &out, &opened))
	if err := res.Err(); err != nil {
		t.Fatal(err)
	}
	rd, err := results.NewReader(bytes.NewReader(out.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for {
		var r results.Result
		if err := rd.Decode(&r); err != nil {
			break
		}
		if r.Code != 200 || r.Attack != "t" {
			t.Fatalf("result %+v", r)
		}
		n++
	}
	if st := res.Stats[0]; n != 5 || st.Sent != 5 || st.Dropped != 0 {
		t.Fatalf("%d results, counters %+v", n, st)
	}
	// the stream ends with what the machine did while the attack ran,
	// and the pacer the attack used (the default: precise; no fallback)
	var h runblock.Health
	want := res.Machine
	want.Pacer = attack.PacerPrecise
	if !attack.PreciseSupported {
		want.Pacer = attack.PacerBatched
	}
	if tr := rd.Trailer(); tr == nil || json.Unmarshal(tr.Health, &h) != nil || h != want {
		t.Errorf("trailer %+v, want the health %+v", rd.Trailer(), want)
	}
}

// Bad targets are refused before the output is opened: an existing
// results file is never truncated by a typo.
func TestBadTargetsDoNotOpenTheOutput(t *testing.T) {
	var out bytes.Buffer
	var opened bool
	err := Run(context.Background(), job(t, "FETCH nowhere\n", &out, &opened)).Err()
	if !badinput.Is(err) || opened {
		t.Fatalf("err %v, output opened %v", err, opened)
	}
}

// watcher records what a Job hands its watchers.
type watcher struct {
	mu      sync.Mutex
	step    string
	attacks []string
	stats   func() attack.Stats
	got     map[string]int // results by attack
}

func (w *watcher) Add(r *results.Result) {
	w.mu.Lock()
	w.got[r.Attack]++
	w.mu.Unlock()
}

func (w *watcher) Begin(step string, attacks []string, stats func() attack.Stats) {
	w.step, w.attacks, w.stats = step, attacks, stats
}

func attackOf(t *testing.T, name, rate string, d time.Duration, targetText string) Attack {
	t.Helper()
	s, err := schedule.Parse(rate, d)
	if err != nil {
		t.Fatal(err)
	}
	o := attack.DefaultOptions()
	o.Name, o.Schedule = name, s
	return Attack{Targets: strings.NewReader(targetText), Options: o}
}

// A step's attacks run at once, each into its own stream and sinks; the
// watchers see them all, their counters summed; one with bad targets is
// left out (its output never opened) and the others run.
func TestAttacksRunTogether(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	defer srv.Close()
	target := "GET " + srv.URL + "/\n"
	a := attackOf(t, "a", "100/s", 50*time.Millisecond, target)
	b := attackOf(t, "b", "100/s", 30*time.Millisecond, target)
	b.StartAfter = 200 * time.Millisecond
	bad := attackOf(t, "bad", "100/s", 50*time.Millisecond, "FETCH nowhere\n")
	var outA, outB bytes.Buffer
	a.Output = func() (io.Writer, error) { return &outA, nil }
	b.Output = func() (io.Writer, error) { return &outB, nil }
	badOpened := false
	bad.Output = func() (io.Writer, error) { badOpened = true; return io.Discard, nil }
	var bFirst time.Time
	b.Sinks = []results.Sink{results.SinkFunc(func(r *results.Result) {
		if bFirst.IsZero() {
			bFirst = r.Sent
		}
	})}
	w := &watcher{got: map[string]int{}}
	start := time.Now()
	out := Run(context.Background(), Job{Attacks: []Attack{a, b, bad}, Step: "s1", Watchers: []Watcher{w}})
	if out.Errs[0] != nil || out.Errs[1] != nil || !badinput.Is(out.Errs[2]) || badOpened || out.Stopped != nil {
		t.Fatalf("outcome %+v, bad output opened %v", out, badOpened)
	}
	if w.step != "s1" || strings.Join(w.attacks, ",") != "a,b,bad" || w.got["a"] != 5 || w.got["b"] != 3 {
		t.Fatalf("watcher saw step %q attacks %v results %v", w.step, w.attacks, w.got)
	}
	if st := w.stats(); st.Sent != 8 || st.Done != 8 || st.InFlight != 0 || st.Started.IsZero() {
		t.Fatalf("summed counters %+v", st)
	}
	if bFirst.Sub(start) < b.StartAfter {
		t.Fatalf("b started %s after the job, want at least %s", bFirst.Sub(start), b.StartAfter)
	}
	for name, buf := range map[string]*bytes.Buffer{"a": &outA, "b": &outB} {
		src, err := results.OpenReader(bytes.NewReader(buf.Bytes()), name)
		if err != nil {
			t.Fatal(err)
		}
		if src.Meta == nil || src.Meta.Attack != name || src.Meta.Planned != uint64(w.got[name]) {
			t.Fatalf("%s: header %+v", name, src.Meta)
		}
	}
}

// The stop rule cuts the attacks short when too many fail, and says so;
// each stream still says how many requests were planned.
func TestErrorRatioStopsTheAttacks(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "busy", http.StatusInternalServerError)
	}))
	defer srv.Close()
	a := attackOf(t, "a", "100/s", 20*time.Second, "GET "+srv.URL+"/\n")
	var buf bytes.Buffer
	a.Output = func() (io.Writer, error) { return &buf, nil }
	start := time.Now()
	out := Run(context.Background(), Job{Attacks: []Attack{a}, Stop: StopRule{Ratio: 0.5, Window: time.Second, MinRequests: 10}})
	took := time.Since(start)
	var er *ErrorRatioError
	if !errors.As(out.Stopped, &er) || er.Ratio <= 0.5 || out.Err() != nil {
		t.Fatalf("outcome %+v", out)
	}
	if took > 15*time.Second {
		t.Fatalf("took %s: the 20 s attack was not stopped", took)
	}
	src, err := results.OpenReader(bytes.NewReader(buf.Bytes()), "a")
	if err != nil {
		t.Fatal(err)
	}
	n := uint64(0)
	for {
		var r results.Result
		if src.Decode(&r) != nil {
			break
		}
		n++
	}
	if src.Meta.Planned != 2000 || n == 0 || n >= 2000 {
		t.Fatalf("planned %d, %d results", src.Meta.Planned, n)
	}
}

// TestRunMeasuresTheMachine: a real attack on a loopback origin reports
// what the machine did while it ran, and its results cut into time blocks
// tell the lag part of its health.
func TestRunMeasuresTheMachine(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { time.Sleep(2 * time.Millisecond) }))
	defer srv.Close()
	s, err := schedule.Parse("200/s", 2500*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	o := attack.DefaultOptions()
	o.Name, o.Schedule = "t", s
	cut := runblock.NewCutter(time.Time{}, 0)
	res := Run(context.Background(), Job{Attacks: []Attack{{Targets: strings.NewReader("GET " + srv.URL + "/\n"), Options: o,
		Sinks: []results.Sink{cut}}}})
	if err := res.Err(); err != nil {
		t.Fatal(err)
	}
	m := res.Machine
	if probe.GeneratorMeasured() && (m.GeneratorCPU <= 0 || m.Busy <= 0 || m.Busy > 1 || m.Steal < 0 || m.GeneratorSaturated < 0) {
		t.Errorf("machine health %+v", m)
	}
	blocks := cut.Blocks()
	if len(blocks) != 2 || blocks[0].Requests != 400 || blocks[1].Requests != 100 || blocks[0].OK != 400 {
		t.Fatalf("blocks %+v, want 400 requests due in the first 2 s and 100 after", blocks)
	}
	h := cut.Health().WithMachine(m)
	if h.LagP99 < 0 || h.LagP50 > h.LagP99 || h.Noise < 0 || h.GeneratorCPU != m.GeneratorCPU {
		t.Errorf("health %+v", h)
	}
}
