package machinecost

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/loadlab/loadlab/internal/model"
)

// TestFromPoints: overheads equal to the reference machine's give back
// its Wake and per-message cost; overheads twice as long give a Wake
// whose extra grows by the difference and a manager twice as slow per
// message. Fixed points: the costs are deterministic.
func TestFromPoints(t *testing.T) {
	k := model.DefaultCosts
	ref := func(f float64) []Point {
		var ps []Point
		for _, s := range ProbeSleeps {
			dial, cl := k.Wake.After(s)
			ps = append(ps, Point{Slept: s, Turnovers: 10, Overhead: time.Duration(f * float64(k.Dial+k.Close+dial+cl))})
		}
		return ps
	}
	same := FromPoints(ref(1))
	if same.Message != k.Message || same.Dial != k.Dial || same.Exchange != k.Exchange {
		t.Errorf("the reference's own overheads changed the costs: %+v", same)
	}
	for _, s := range ProbeSleeps {
		d0, c0 := k.Wake.After(s)
		d1, c1 := same.Wake.After(s)
		if (d1-d0).Abs() > time.Microsecond || (c1-c0).Abs() > time.Microsecond {
			t.Errorf("after %v: dial %v close %v, want the reference's %v and %v", s, d1, c1, d0, c0)
		}
	}
	slow := FromPoints(ref(2))
	if slow.Message != 2*k.Message {
		t.Errorf("a machine twice as slow: message %v, want %v", slow.Message, 2*k.Message)
	}
	d0, c0 := k.Wake.After(5 * time.Millisecond)
	d1, c1 := slow.Wake.After(5 * time.Millisecond)
	if got, want := d1+c1, k.Dial+k.Close+2*(d0+c0); (got - want).Abs() > time.Microsecond {
		t.Errorf("after 5ms: the extra is %v, want %v (the overhead doubled, less the back-to-back dial and close)", got, want)
	}
}

// TestMeasure: the probe through the real pool takes about a second and
// gives a Wake of one point per sleep, ascending.
func TestMeasure(t *testing.T) {
	began := time.Now()
	k, points, err := Measure(context.Background())
	took := time.Since(began)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("took %v; points %+v; message %v; wake %+v", took, points, k.Message, k.Wake.Points)
	if len(points) != len(ProbeSleeps) || len(k.Wake.Points) != len(ProbeSleeps) || took > 5*time.Second {
		t.Fatalf("%d points, %d wake points in %v: want %d in about a second", len(points), len(k.Wake.Points), took, len(ProbeSleeps))
	}
	for i, p := range k.Wake.Points {
		if p.Slept != ProbeSleeps[i] || p.Dial < 0 || p.Close < 0 {
			t.Errorf("wake point %d: %+v", i, p)
		}
	}
	if k.Message < model.DefaultCosts.Message/2 || k.Message > 5*model.DefaultCosts.Message {
		t.Errorf("message %v out of ×0.5..×5 of the reference's", k.Message)
	}
}

// TestForCaches: the first call measures and caches under the machine's
// key; the second reads the cache (the same measurement, its date
// said); a cache of another machine is not used; reference mode measures
// nothing.
func TestForCaches(t *testing.T) {
	dir := t.TempDir()
	k, said := For(context.Background(), dir, ModeMachine)
	file := filepath.Join(dir, "costs-"+This().Key()+".json")
	b, err := os.ReadFile(file)
	if err != nil || !strings.HasPrefix(said, "costs measured on this machine ("+This().String()+") at ") {
		t.Fatalf("first call: %q, cache %v", said, err)
	}
	var c Cached
	if err := json.Unmarshal(b, &c); err != nil || c.Machine != This() || c.Costs.Message != k.Message {
		t.Fatalf("cache %+v (%v)", c, err)
	}
	// A cached measurement with a recognisable cost is what comes back.
	c.Costs.Message = 1234 * time.Microsecond
	b, _ = json.Marshal(c)
	if err := os.WriteFile(file, b, 0o644); err != nil {
		t.Fatal(err)
	}
	if k2, said2 := For(context.Background(), dir, ModeMachine); k2.Message != 1234*time.Microsecond || said2 != said {
		t.Errorf("second call: message %v, %q; want the cached 1.234ms and %q", k2.Message, said2, said)
	}
	// Another machine's cache is measured again.
	c.Machine.Cores++
	b, _ = json.Marshal(c)
	if err := os.WriteFile(file, b, 0o644); err != nil {
		t.Fatal(err)
	}
	if k3, _ := For(context.Background(), dir, ModeMachine); k3.Message == 1234*time.Microsecond {
		t.Error("another machine's costs were used")
	}
	if k4, said4 := For(context.Background(), t.TempDir(), ModeReference); k4.Message != model.DefaultCosts.Message || !strings.Contains(said4, "reference machine") {
		t.Errorf("reference: %+v, %q", k4, said4)
	}
}
