package load

import (
	"encoding/json"
	"testing"
)

// A load is written one way whatever made it: a paced rate as given, a
// closed loop's users, one count or the fewest and the most of a sweep;
// Parse reads back what String writes.
func TestStringAndParse(t *testing.T) {
	for _, c := range []struct {
		l    Load
		want string
	}{
		{Paced("350/s"), "350/s"}, {Paced("10/s..100/s"), "10/s..100/s"}, {PerSecond(350.02), "350/s"}, {PerSecond(99.46), "99.5/s"},
		{PerSecond(0), "0/s"}, {Closed(1), "1 user"}, {Closed(1, 1), "1 user"}, {Closed(32), "32 users"}, {Closed(4, 8, 16), "4-16 users"},
		{Closed(16, 4), "4-16 users"}, {Of("0", 16), "16 users"}, {Of("40/s", 0), "40/s"}, {Of("40/s", -3), "40/s"}, {Load{}, ""},
	} {
		if got := c.l.String(); got != c.want {
			t.Errorf("%+v: %q, want %q", c.l, got, c.want)
		}
		if c.want == "" {
			continue
		}
		back, err := Parse(c.want)
		if err != nil || back.String() != c.want || back.IsClosed() != c.l.IsClosed() {
			t.Errorf("Parse(%q) = %+v, %v", c.want, back, err)
		}
	}
	if lo, hi := Closed(16, 4, 8).Bounds(); lo != 4 || hi != 16 {
		t.Errorf("bounds of a sweep: %d, %d", lo, hi)
	}
	if lo, hi := Of("0", 0).Bounds(); lo != 0 || hi != 0 || Of("0", 0).IsClosed() {
		t.Errorf("a header without users: bounds %d, %d", lo, hi)
	}
	for _, bad := range []string{"", "users", "0 users", "-3 users", "16-4 users", "x users", "fast"} {
		if l, err := Parse(bad); err == nil {
			t.Errorf("Parse(%q) = %+v, want an error", bad, l)
		}
	}
}

// Every form a load was stored in reads into one Load: as it is written
// now, a header's or summary's users count, an archived run's users of
// each step.
func TestJSONReadsEveryForm(t *testing.T) {
	for _, c := range []struct{ js, want string }{
		{`"350/s"`, "350/s"}, {`"32 users"`, "32 users"}, {`"4-16 users"`, "4-16 users"}, {`"1 user"`, "1 user"},
		{`16`, "16 users"}, {`0`, ""}, {`-3`, ""}, {`[4, 8, 16]`, "4-16 users"}, {`[32]`, "32 users"}, {`[]`, ""},
		{`null`, ""}, {`""`, ""},
	} {
		var l Load
		if err := json.Unmarshal([]byte(c.js), &l); err != nil || l.String() != c.want {
			t.Errorf("%s reads as %q (%v), want %q", c.js, l, err, c.want)
		}
		if c.want == "" {
			continue
		}
		js, err := json.Marshal(l)
		var again Load
		if err != nil || json.Unmarshal(js, &again) != nil || again != l {
			t.Errorf("%s: written as %s (%v), read back as %+v, want %+v", c.js, js, err, again, l)
		}
	}
	for _, bad := range []string{`"0 users"`, `{}`, `["a"]`, `true`, `"fast"`} {
		var l Load
		if err := json.Unmarshal([]byte(bad), &l); err == nil {
			t.Errorf("%s read as %+v, want an error", bad, l)
		}
	}
}

// Rates are written with thousands separators, and to a tenth below 100.
func TestFmtRate(t *testing.T) {
	for _, c := range []struct {
		r    float64
		want string
	}{{1040, "1,040"}, {1234567.4, "1,234,567"}, {155.2, "155"}, {12.54, "12.5"}, {99.96, "100"}, {0, "0"}} {
		if got := FmtRate(c.r); got != c.want {
			t.Errorf("FmtRate(%v) = %q, want %q", c.r, got, c.want)
		}
	}
}

// A measured per-second figure is written to about three places.
func TestFmtPerSecond(t *testing.T) {
	for _, c := range []struct {
		r    float64
		want string
	}{{1040.4, "1040/s"}, {100, "100/s"}, {15.24, "15.2/s"}, {0.254, "0.25/s"}, {0, "0.00/s"}} {
		if got := FmtPerSecond(c.r); got != c.want {
			t.Errorf("FmtPerSecond(%v) = %q, want %q", c.r, got, c.want)
		}
	}
}
