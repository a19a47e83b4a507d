package sqlstore

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/loadlab/loadlab/internal/archive"
	"github.com/loadlab/loadlab/internal/results"
	"github.com/loadlab/loadlab/internal/runblock"
)

// dropV4 takes a database of this schema back to what version 3 left
// (no health, no blocks).
var dropV4 = []string{"ALTER TABLE runs DROP COLUMN health", "ALTER TABLE steps DROP COLUMN health",
	"ALTER TABLE steps DROP COLUMN blocks", "ALTER TABLE scenarios DROP COLUMN health"}

// withHealth gives b's run, steps and scenarios a health and each step's
// scenario time blocks (of a 5 s attack at 20/s whose requests due in its
// third second were sent 300 ms late).
func withHealth(b *archive.Bundle) {
	machine := runblock.Health{GeneratorCPU: 0.42, GeneratorSaturated: 0.1, Busy: 0.31, Steal: 0.01}
	b.Run.Health = runblock.LagHealth(time.Millisecond, 300*time.Millisecond, 500*time.Millisecond).WithMachine(machine)
	b.Blocks = map[archive.StepKey][]runblock.Block{}
	for i := range b.Run.Steps {
		st := &b.Run.Steps[i]
		st.Health = runblock.LagHealth(time.Duration(i+1)*time.Millisecond, time.Duration(i+2)*time.Millisecond, 100*time.Millisecond).WithMachine(machine)
		cut := runblock.NewCutter(st.Started, 0)
		for j := range 100 {
			due := st.Started.Add(time.Duration(j) * 50 * time.Millisecond)
			lag := time.Duration(0)
			if j >= 40 && j < 60 {
				lag = 300 * time.Millisecond
			}
			cut.Add(&results.Result{Due: due, Sent: due.Add(lag), Latency: 5 * time.Millisecond, Code: 200})
		}
		b.Blocks[archive.StepKey{Step: st.Index, Scenario: st.Scenario}] = cut.Blocks()
	}
	b.ScenarioHealth = map[string]runblock.Health{"page": b.Run.Steps[0].Health, "search": b.Run.Health}
}

// Health and time blocks are stored with a run and read back by List,
// Get, Points and Blocks; an archive of schema version 3 (before them)
// migrates, its runs read with Health Unknown and no blocks, and takes
// new runs with both.
func TestHealthAndBlocksKeptAndVersion3Migrates(t *testing.T) {
	forEach(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		s := open(t, dsn)
		t0 := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
		old, _, err := s.Add(ctx, identified(t, bundle(t, "before", t0, 50*time.Millisecond, nil)))
		if err != nil {
			t.Fatal(err)
		}
		s = reopenAfter(t, s, dsn, append(append([]string{"DROP TABLE accepted"}, dropV4...), "UPDATE schema_version SET version = 3")...)
		var v int
		if err := s.db.QueryRow("SELECT version FROM schema_version").Scan(&v); err != nil || v != SchemaVersion || SchemaVersion < 4 {
			t.Fatalf("schema version %d (%v) after reopening, want %d", v, err, SchemaVersion)
		}
		b := bundle(t, "after", t0.Add(time.Minute), 50*time.Millisecond, nil)
		withHealth(b)
		id, _, err := s.Add(ctx, identified(t, b))
		if err != nil {
			t.Fatal(err)
		}

		runs, _, err := s.List(ctx, archive.Filter{Sort: "started", Asc: true})
		if err != nil || len(runs) != 2 {
			t.Fatalf("list: %d runs, %v", len(runs), err)
		}
		if runs[0].Health != runblock.UnknownHealth() || runs[0].Health.Known() {
			t.Errorf("a run archived before version 4 lists with health %+v, want Unknown", runs[0].Health)
		}
		if runs[1].Health != b.Run.Health {
			t.Errorf("listed health %+v, want %+v", runs[1].Health, b.Run.Health)
		}
		got, err := s.Get(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		if got.Health != b.Run.Health {
			t.Errorf("Get's health %+v", got.Health)
		}
		for i, st := range got.Steps {
			if st.Health != b.Run.Steps[i].Health {
				t.Errorf("step %d %s health %+v, want %+v", st.Index, st.Scenario, st.Health, b.Run.Steps[i].Health)
			}
		}
		if o, _ := s.Get(ctx, old); o.Steps[0].Health.Known() {
			t.Errorf("an old run's step health %+v", o.Steps[0].Health)
		}
		pts, err := s.Points(ctx, archive.Filter{}, "search")
		if err != nil || len(pts) != 2 {
			t.Fatalf("points: %v %v", pts, err)
		}
		for _, p := range pts {
			want := runblock.UnknownHealth()
			if p.ID == id {
				want = b.Run.Health // the bundle's search health
			}
			if p.Health != want {
				t.Errorf("point %s health %+v, want %+v", p.Name, p.Health, want)
			}
		}
		if pts, _ := s.Points(ctx, archive.Filter{}, ""); pts[0].Health != b.Run.Health && pts[1].Health != b.Run.Health {
			t.Errorf("the run's points carry no health: %+v", pts)
		}

		blocks, err := s.Blocks(ctx, id, 1, "page")
		if err != nil {
			t.Fatal(err)
		}
		want := b.Blocks[archive.StepKey{Step: 1, Scenario: "page"}]
		if len(blocks) != 3 || len(blocks) != len(want) {
			t.Fatalf("%d blocks back, want 3", len(blocks))
		}
		for i := range blocks {
			if blocks[i].Requests != want[i].Requests || blocks[i].LagP99 != want[i].LagP99 || string(blocks[i].Hist) != string(want[i].Hist) {
				t.Errorf("block %d: %+v, want %+v", i, blocks[i], want[i])
			}
		}
		if blocks[1].LagP99 < 290*time.Millisecond || blocks[0].LagP99 != 0 {
			t.Errorf("lag p99 of the blocks %v %v: want the pause in the second", blocks[0].LagP99, blocks[1].LagP99)
		}
		if ob, err := s.Blocks(ctx, old, 0, "page"); err != nil || ob != nil {
			t.Errorf("an old run's blocks: %v, %v (want none)", ob, err)
		}
		if _, err := s.Blocks(ctx, id, 7, "page"); !errors.Is(err, archive.ErrNotFound) {
			t.Errorf("blocks of a missing step: %v", err)
		}
		if _, err := s.Blocks(ctx, "nope", 0, "page"); !errors.Is(err, archive.ErrNotFound) {
			t.Errorf("blocks of a missing run: %v", err)
		}

		// a damaged blocks column is an error naming the run, not a panic
		// or a huge allocation
		if _, err := s.db.Exec(s.d.rebind("UPDATE steps SET blocks = ? WHERE idx = 0 AND scenario = 'page'"), []byte("LLRB\x01\xff\xff\xff\xff\x0f")); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Blocks(ctx, id, 0, "page"); err == nil {
			t.Error("damaged blocks read without an error")
		}
	})
}
