package schedule

import (
	"errors"
	"math"
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
		// decimals, as plans always allowed, are carried exactly
		{"1.5", Rate{3, 2 * time.Second}},
		{"0.25", Rate{1, 4 * time.Second}},
		{"2.5/m", Rate{5, 2 * time.Minute}},
		{"1e3/s", Rate{1000, time.Second}},
		{"50/", Rate{50, time.Second}},
		{" 7 / 2s ", Rate{7, 2 * time.Second}},
	}
	for _, c := range cases {
		got, err := ParseRate(c.in)
		if err != nil || got != c.want {
			t.Errorf("ParseRate(%q) = %v, %v; want %v", c.in, got, err, c.want)
		}
	}
	for _, bad := range []string{"", "fast", "-5", "10/x", "10/0s", "NaN", "Inf", "2/0.5ns", "1.5.2"} {
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
	if l := s.Length(); l != 2*time.Second {
		t.Errorf("Length %v, want 4 steps of 500ms", l)
	}
	s, _ = ParseSteps("10,20", time.Second, 1500*time.Millisecond)
	if tot, _ := s.Total(); tot != 20 {
		t.Errorf("cut short: %d", tot)
	}
	if l := s.Length(); l != 1500*time.Millisecond {
		t.Errorf("cut short: Length %v", l)
	}
	if s, _ = Parse("10/s", 0); s.Length() != 0 {
		t.Errorf("until cancelled: Length %v", s.Length())
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

func TestRateExactAndNearest(t *testing.T) {
	// 0.3333/s is 3333 per 10,000 s, not a rounded float
	r, err := ParseRate("0.3333")
	if err != nil || r != (Rate{3333, 10000 * time.Second}) {
		t.Fatalf("0.3333 = %v, %v", r, err)
	}
	if d := r.at(3333); d != 10000*time.Second {
		t.Errorf("request 3333 at 0.3333/s due %v, want 10000s", d)
	}
	// too fine for 64 bits: the nearest rate that fits, never zero
	r, err = ParseRate("0.0000001/h")
	if err != nil || r.IsZero() || r.Per <= 0 {
		t.Fatalf("tiny rate = %v, %v", r, err)
	}
	r, err = ParseRate("1.00000000000000000000000000001/s")
	if err != nil || r.Per <= 0 || math.Abs(r.PerSecond()-1) > 1e-9 {
		t.Fatalf("over-precise rate = %v (%v/s), %v", r, r.PerSecond(), err)
	}
	if !(Rate{60, time.Minute}).Equal(Rate{1, time.Second}) || (Rate{2, time.Second}).Equal(Rate{1, time.Second}) {
		t.Error("Equal")
	}
}

func TestSpec(t *testing.T) {
	sp, err := ParseSpec(" 10/s..30 ")
	if err != nil || !sp.IsRamp() || sp.Text != "10/s..30" || sp.To != (Rate{30, time.Second}) {
		t.Fatalf("%+v %v", sp, err)
	}
	// equal ends: a constant rate, due times exact
	sp, _ = ParseSpec("60/m..1/s")
	s, err := New(sp, time.Second)
	if err != nil || s.Kind != Constant {
		t.Fatalf("equal-ended ramp: %+v %v", s, err)
	}
	if _, err := ParseSpec("0..0/s"); err == nil || !strings.Contains(err.Error(), "from 0 to 0") {
		t.Errorf("0..0: %v", err)
	}
	// errors from New name the inputs with the caller's words
	sp, _ = ParseSpec("1..2")
	_, err = New(sp, 0)
	var ie *InputError
	if !errors.As(err, &ie) || ie.Input != "rate" {
		t.Fatalf("ramp without duration: %v", err)
	}
	if got := ie.Message(func(in string) string { return "scenarios[0]." + in }); got != `a ramp "1..2" needs a scenarios[0].duration to ramp over` {
		t.Errorf("message %q", got)
	}
	if _, err := ParseStepList("8,,16"); err == nil || !strings.Contains(err.Error(), "step 2") {
		t.Errorf("empty step: %v", err)
	}
}

func FuzzParseRate(f *testing.F) {
	for _, s := range []string{"1000/s", "60/m", "0", "2.5/s", "0.25", "5/250ms", "1/1ns", "1e3", "0x10/h", "+5", "1/", "0.0000001/h", "9/ 2s"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		r, err := ParseRate(s)
		if err != nil {
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("multi-line error %q", err)
			}
			return
		}
		if r.Per <= 0 {
			t.Fatalf("%q: period %v", s, r.Per)
		}
		if !r.IsZero() && r.Freq > uint64(r.Per) {
			t.Fatalf("%q: %v is above one request per nanosecond", s, r)
		}
		// the rate's own text reads back as the same rate
		back, err := ParseRate(r.String())
		if err != nil || !back.Equal(r) {
			t.Fatalf("%q -> %v -> %q -> %v, %v", s, r, r.String(), back, err)
		}
		// a staircase and a ramp of it parse too, with the same rates
		sp, err := ParseStepList(s + "," + s)
		if err != nil || len(sp.Steps) != 2 || !sp.Steps[0].Equal(r) {
			t.Fatalf("steps of %q: %+v, %v", s, sp, err)
		}
		if !r.IsZero() {
			if sp, err := ParseSpec(r.String() + ".." + s); err != nil || sp.IsRamp() || !sp.To.Equal(r) {
				t.Fatalf("ramp of %q: %+v, %v", s, sp, err)
			}
		}
	})
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
