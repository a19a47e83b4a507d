package ingest

import (
	"context"
	"slices"
	"testing"

	"github.com/loadlab/loadlab/internal/load"
	"github.com/loadlab/loadlab/internal/results"
)

// A results file's header names a closed loop's users (attack -rate=0
// -max-workers N); a header with a count of none or less than none (a
// broken or hostile file) names a paced run: its load is the rate it
// sent, never "-3 users".
func TestResultsHeaderUsers(t *testing.T) {
	for _, c := range []struct {
		users int
		want  []int
	}{{4, []int{4}}, {0, nil}, {-3, nil}} {
		path := writeStreamMeta(t, 200, results.Meta{Attack: "a", Load: load.Load{Users: c.users, MaxUsers: c.users}})
		bs, _, err := Bundles(context.Background(), []string{path}, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if len(bs) != 1 {
			t.Fatalf("users %d: %d bundles, want 1", c.users, len(bs))
		}
		if got := bs[0].Run.Users; !slices.Equal(got, c.want) {
			t.Errorf("header users %d: run users %v, want %v (load %q)", c.users, got, c.want, bs[0].Run.Load())
		}
	}
}
