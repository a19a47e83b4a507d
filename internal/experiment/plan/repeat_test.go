package plan

import (
	"strings"
	"testing"
)

// repeat: N runs every cell N times, interleaved over the cells (all six
// once, then all six again), each copy carrying its replicate.
func TestRepeatInterleaves(t *testing.T) {
	p, err := Parse("plan.yaml", "testdata", []byte(good+"repeat: 2\n"))
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Steps) != 12 || p.Repeats != 2 {
		t.Fatalf("got %d steps, repeats %d; want 12, 2", len(p.Steps), p.Repeats)
	}
	for i, st := range p.Steps {
		cell := p.Steps[i%6]
		want := map[bool]string{true: "1", false: "2"}[i < 6]
		if st.Index != i || st.Vars[RepeatVar] != want || st.Vars["rate"] != cell.Vars["rate"] || st.Variants["proxy"] != cell.Variants["proxy"] {
			t.Errorf("step %d: index %d, vars %v, variants %v; want replicate %s of cell %v", i, st.Index, st.Vars, st.Variants, want, cell.Vars)
		}
		if !strings.HasSuffix(st.Name, "(repeat "+want+"/2)") {
			t.Errorf("step %d name %q", i, st.Name)
		}
	}
	if p.Steps[0].Vars[RepeatVar] == p.Steps[6].Vars[RepeatVar] || &p.Steps[0].Vars == &p.Steps[6].Vars {
		t.Error("the copies share their variables")
	}
}

func TestRepeatRefused(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		{good + "repeat: 0\n", "repeat: want a whole number from 1 to 20"},
		{good + "repeat: two\n", `repeat: want a whole number from 1 to 20, got "two"`},
		{good + "repeat: 21\n", "from 1 to 20, got 21"},
		{good + "repeats: 2\n", "repeats"},
	} {
		_, err := Parse("plan.yaml", "testdata", []byte(tc.src))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: error %v, want %q", tc.src[len(good):], err, tc.want)
		}
	}
}
