package schedule

import (
	"strings"
	"testing"
	"time"

	"github.com/loadlab/loadlab/internal/badinput"
)

func TestParseRate(t *testing.T) {
	cases := []struct {
		in   string
		want Rate
	}{
		{"1000", Rate{1000, time.Second}},
		{"1000/s", Rate{1000, time.Second}},
		{"60/m", Rate{60, time.Minute}},
		{"5/250ms", Rate{5, 250 * time.Millisecond}},
		{"50/1s", Rate{50, time.Second}},
		{"0", Rate{0, time.Second}},
	}
	for _, c := range cases {
		got, err := ParseRate(c.in)
		if err != nil || got != c.want {
			t.Errorf("ParseRate(%q) = %v, %v; want %v", c.in, got, err, c.want)
		}
	}
	for _, bad := range []string{"", "fast", "-5", "10/x", "10/0s", "1.5"} {
		if _, err := ParseRate(bad); err == nil {
			t.Errorf("ParseRate(%q) accepted", bad)
		}
	}
}

func TestConstantExact(t *testing.T) {
	s, err := Parse("200/s", time.Second)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for i := uint64(0); ; i++ {
		d, step, ok := s.At(i)
		if !ok {
			break
		}
		if d != time.Duration(i)*5*time.Millisecond || step != 0 {
			t.Fatalf("request %d due %v step %d", i, d, step)
		}
		n++
	}
	if n != 200 {
		t.Fatalf("%d requests, want 200", n)
	}
	if tot, ok := s.Total(); !ok || tot != 200 {
		t.Errorf("Total = %d %v", tot, ok)
	}
	// 3/s: due times are exact thirds, no accumulated rounding
	s, _ = Parse("3/s", 0)
	if d, _, _ := s.At(3_000_000_000); d != time.Duration(1_000_000_000)*time.Second {
		t.Errorf("request 3e9 at 3/s due %v, want 1e9 s", d)
	}
	if d, _, _ := s.At(1); d != 333333333 {
		t.Errorf("request 1 at 3/s due %v", d)
	}
	s, _ = Parse("60/m", 2*time.Minute)
	if tot, _ := s.Total(); tot != 120 {
		t.Errorf("60/m for 2m: %d requests", tot)
	}
}

func TestRamp(t *testing.T) {
	s, err := Parse("100/s..300/s", 2*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	tot, ok := s.Total()
	if !ok || tot < 399 || tot > 401 { // mean rate 200/s for 2 s
		t.Fatalf("ramp total = %d", tot)
	}
	// rate near the start ~100/s, near the end ~300/s
	d1, _, _ := s.At(1)
	if d1 < 9*time.Millisecond || d1 > 11*time.Millisecond {
		t.Errorf("second request of the ramp due %v, want ~10ms", d1)
	}
	a, _, _ := s.At(tot - 2)
	b, _, _ := s.At(tot - 1)
	if gap := b - a; gap < 3*time.Millisecond || gap > 3500*time.Microsecond {
		t.Errorf("gap at the end of the ramp %v, want ~3.3ms", gap)
	}
	prev := time.Duration(-1)
	for i := uint64(0); i < tot; i++ {
		d, _, _ := s.At(i)
		if d <= prev {
			t.Fatalf("due times not increasing at %d", i)
		}
		prev = d
	}
	s, _ = Parse("0/s..100/s", time.Second)
	if tot, _ := s.Total(); tot < 49 || tot > 51 {
		t.Errorf("ramp from 0: %d", tot)
	}
}

func TestSteps(t *testing.T) {
	s, err := ParseSteps("10,20,0,40", 500*time.Millisecond, 0)
	if err != nil {
		t.Fatal(err)
	}
	counts := map[uint32]int{}
	var last time.Duration
	for i := uint64(0); ; i++ {
		d, step, ok := s.At(i)
		if !ok {
			break
		}
		if d < last {
			t.Fatal("due times go back")
		}
		last = d
		if lo := time.Duration(step) * 500 * time.Millisecond; d < lo || d >= lo+500*time.Millisecond {
			t.Fatalf("request %d due %v outside step %d", i, d, step)
		}
		counts[step]++
	}
	if counts[0] != 5 || counts[1] != 10 || counts[2] != 0 || counts[3] != 20 {
		t.Errorf("per-step counts %v", counts)
	}
	if tot, _ := s.Total(); tot != 35 {
		t.Errorf("Total %d", tot)
	}
	s, _ = ParseSteps("10,20", time.Second, 1500*time.Millisecond)
	if tot, _ := s.Total(); tot != 20 {
		t.Errorf("cut short: %d", tot)
	}
}

func TestParseErrors(t *testing.T) {
	cases := []struct {
		rate string
		dur  time.Duration
		want string
	}{
		{"abc", 0, "-rate: bad rate"},
		{"10/s..20/s", 0, "needs a -duration"},
		{"0..0", time.Second, "from 0 to 0"},
		{"10", -time.Second, "-duration"},
	}
	for _, c := range cases {
		_, err := Parse(c.rate, c.dur)
		if err == nil || !badinput.Is(err) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Parse(%q, %v) = %v, want %q", c.rate, c.dur, err, c.want)
		}
	}
	if _, err := ParseSteps("8,x", time.Second, 0); err == nil || !strings.Contains(err.Error(), "step 2") {
		t.Errorf("steps error %v", err)
	}
	if _, err := ParseSteps("8", 0, 0); err == nil {
		t.Error("steps without duration accepted")
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{"1000/s", "60/m", "0", "100/s..2000/s", "5/250ms", "1/1ns"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		sc, err := Parse(s, time.Second)
		if err != nil {
			return
		}
		prev := time.Duration(-1)
		for i := uint64(0); i < 100; i++ {
			d, _, ok := sc.At(i)
			if !ok {
				break
			}
			if d < prev && !sc.Unpaced() {
				t.Fatalf("%q: due times go back at %d", s, i)
			}
			prev = d
		}
	})
}
