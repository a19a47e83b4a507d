package recipe

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/loadlab/loadlab/internal/badinput"
)

func TestParseVectors(t *testing.T) {
	files, err := filepath.Glob("testdata/*.json")
	if err != nil || len(files) < 17 {
		t.Fatalf("want the origin_simulator vector recipes in testdata, got %d (%v)", len(files), err)
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			rs, err := Parse(data)
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			for _, r := range rs {
				if !strings.HasPrefix(r.Route, "/") || len(r.Stages) == 0 {
					t.Errorf("bad recipe %+v", r)
				}
				for i := 1; i < len(r.Stages); i++ {
					if r.Stages[i].At < r.Stages[i-1].At {
						t.Errorf("stages not sorted")
					}
				}
			}
		})
	}
}

func TestParseFields(t *testing.T) {
	rs, err := Parse([]byte(`[
	 {"route": "/a*", "random_content": "50kb..100kb", "headers": {"Content-Encoding": "gzip", "x": "1"},
	  "stages": [{"at": "2s", "status": 503, "latency": "100ms..500ms"}, {"at": 0, "status": "200", "latency": 0}]},
	 {"route": "/b", "body": "x<<1kb>>y", "stages": [{"at": 1500, "status": {"200": 95, "503": 5},
	  "latency": {"distribution": "lognormal", "p50": "100ms", "p99": "1s"},
	  "faults": {"reset": 0.01, "slow_body": {"probability": 0.1, "rate": "1kb"}, "truncate": {"probability": 0.2, "fraction": 0.25}}}]},
	 {"stages": [{"status": 200}], "origin": null, "body": null, "random_content": null}
	]`))
	if err != nil {
		t.Fatal(err)
	}
	a, b, c := rs[0], rs[1], rs[2]
	if a.Route != "/a*" || a.RandomMin != 50<<10 || a.RandomMax != 100<<10 || !a.Gzip || !a.HasRandom {
		t.Errorf("a = %+v", a)
	}
	if a.Stages[0].At != 0 || a.Stages[1].At != 2*time.Second {
		t.Errorf("stages not sorted: %+v", a.Stages)
	}
	if u, ok := a.Stages[1].Latency.(Uniform); !ok || u.Min != 100*time.Millisecond || u.Max != 500*time.Millisecond {
		t.Errorf("latency = %#v", a.Stages[1].Latency)
	}
	if got := a.Stages[1].Latency.String(); got != "100..500" {
		t.Errorf("range prints %q", got)
	}
	if len(b.BodyParts) != 3 || b.BodyParts[1].Random != 1024 || b.BodyParts[2].Text != "y" {
		t.Errorf("body parts = %+v", b.BodyParts)
	}
	st := b.Stages[0]
	if st.At != 1500*time.Millisecond || st.Status.String() != "200:95,503:5" {
		t.Errorf("stage = %+v", st)
	}
	if st.Faults.Prob[Reset] != 0.01 || st.Faults.SlowRate != 1024 || st.Faults.TruncateFraction != 0.25 {
		t.Errorf("faults = %+v", st.Faults)
	}
	if c.Route != DefaultRoute || c.Echo.Origin != nil || c.HasBody {
		t.Errorf("c = %+v", c)
	}
}

func TestParseErrors(t *testing.T) {
	cases := []struct{ in, field, msg string }{
		{`{"stages": [{"at": 0, "status": 200, "latency": "5x"}]}`, "stages[0].latency", `"5x"`},
		{`[{"stages": [{"status": 200}]}, {"route": "news", "stages": [{"status": 200}]}]`, "[1].route", "starting with"},
		{`{"stages": []}`, "stages", "at least one"},
		{`{"route": "/"}`, "stages", "missing"},
		{`{"stages": [{"status": 99}]}`, "stages[0].status", "200 to 599"},
		{`{"stages": [{"status": {"200": -1}}]}`, "stages[0].status.200", "weight"},
		{`{"stages": [{"status": 200, "latancy": 0}]}`, "stages[0].latancy", "unknown field"},
		{`{"stages": [{"status": 200}], "random": 428}`, "random", "unknown field"},
		{`{"stages": [{"status": 200}], "random_content": "3xb"}`, "random_content", "unknown unit"},
		{`{"stages": [{"status": 200}], "body": "<<huge>>"}`, "body", "placeholder"},
		{`{"stages": [{"status": 200}], "origin": "ftp://x"}`, "origin", "URL"},
		{`{"stages": [{"status": 200}], "headers": {"content-encoding": "br"}}`, "headers.content-encoding", "gzip"},
		{`{"stages": [{"status": 200, "faults": {"reset": 0.7, "hang": 0.6}}]}`, "stages[0].faults", "more than 1"},
		{`{"stages": [{"status": 200, "latency": {"distribution": "lognormal", "p50": "1s", "p99": "10ms"}}]}`, "stages[0].latency.p99", "smaller"},
		{`{"stages": [{"status": 200, "latency": "500ms..100ms"}]}`, "stages[0].latency", "before its start"},
		{`{"stages": [{"status": 200}], "body": "a", "origin": "http://127.0.0.1/"}`, "origin", "only one"},
		{`[{"stages": [{"status": 200}]}, {"route": "/*", "stages": [{"status": 200}]}]`, "[1].route", "already defined"},
		{`{"stages": [{"status": 200, "contention": {"sigma": 1.5}}]}`, "stages[0].contention.sigma", "from 0 to 1"},
		{`{"stages": [{"status": 200, "contention": {"kappa": -0.1}}]}`, "stages[0].contention.kappa", "from 0 to 1"},
		{`{"stages": [{"status": 200, "contention": {"sigma": "0.1"}}]}`, "stages[0].contention.sigma", "from 0 to 1"},
		{`{"stages": [{"status": 200, "contention": {"alpha": 0.1}}]}`, "stages[0].contention.alpha", "unknown field"},
		{`{"stages": [{"status": 200, "contention": 0.1}]}`, "stages[0].contention", "sigma"},
	}
	for _, c := range cases {
		_, err := Parse([]byte(c.in))
		var be *badinput.Error
		if err == nil || !asBad(err, &be) {
			t.Errorf("%s: err = %v, want a *badinput.Error", c.in, err)
			continue
		}
		if be.Field != c.field || !strings.Contains(be.Error(), c.msg) {
			t.Errorf("%s:\n got field %q: %v\nwant field %q containing %q", c.in, be.Field, err, c.field, c.msg)
		}
	}
	_, err := Parse([]byte("{\n\"stages\": [\n}"))
	var be *badinput.Error
	if !asBad(err, &be) || be.Line != 3 {
		t.Errorf("syntax error: %v (line %d), want line 3", err, be.Line)
	}
}

func asBad(err error, be **badinput.Error) bool {
	e, ok := err.(*badinput.Error)
	*be = e
	return ok
}

func TestParseDuration(t *testing.T) {
	cases := []struct {
		in   string
		want time.Duration
		ok   bool
	}{
		{"0", 0, true}, {"100ms", 100 * time.Millisecond, true}, {"2s", 2 * time.Second, true},
		{"1.5s", 1500 * time.Millisecond, true}, {"0s", 0, true}, {"250us", 250 * time.Microsecond, true},
		{"5", 0, false}, {"ms", 0, false}, {"-1s", 0, false}, {"1x", 0, false}, {"25h", 0, false}, {"", 0, false},
	}
	for _, c := range cases {
		got, err := ParseDuration(c.in)
		if (err == nil) != c.ok || got != c.want {
			t.Errorf("ParseDuration(%q) = %v, %v", c.in, got, err)
		}
	}
}

func TestParseSize(t *testing.T) {
	cases := []struct {
		in   string
		want int64
		ok   bool
	}{
		{"300kb", 307200, true}, {"10b", 10, true}, {"2mb", 2 << 20, true}, {"50KB", 51200, true},
		{"1gb", 0, false}, {"kb", 0, false}, {"5", 0, false}, {"65mb", 0, false}, {"99999999999999999999kb", 0, false},
	}
	for _, c := range cases {
		got, err := ParseSize(c.in)
		if (err == nil) != c.ok || got != c.want {
			t.Errorf("ParseSize(%q) = %v, %v", c.in, got, err)
		}
	}
	lo, hi, err := ParseSizeRange("50kb..100kb")
	if err != nil || lo != 51200 || hi != 102400 {
		t.Errorf("range = %d %d %v", lo, hi, err)
	}
}

func TestStatusMixDistribution(t *testing.T) {
	m := NewStatusMix(map[int]float64{200: 90, 503: 10})
	r := rand.New(rand.NewPCG(1, 2))
	n503 := 0
	const n = 20000
	for range n {
		if m.Pick(r) == 503 {
			n503++
		}
	}
	if f := float64(n503) / n; f < 0.09 || f > 0.11 {
		t.Errorf("503 share = %.3f, want ~0.10", f)
	}
}

func TestLatencyDistributions(t *testing.T) {
	ms := time.Millisecond
	cases := []struct {
		name     string
		l        Latency
		p50, p99 time.Duration // expected quantiles, checked within 15%
	}{
		{"fixed", Fixed(100 * ms), 100 * ms, 100 * ms},
		{"uniform", Uniform{100 * ms, 500 * ms}, 300 * ms, 496 * ms},
		{"normal", Normal{Mean: 200 * ms, StdDev: 20 * ms}, 200 * ms, 246 * ms},
		{"lognormal", LogNormal{P50: 100 * ms, P99: time.Second}, 100 * ms, time.Second},
		{"pareto", Pareto{Min: 50 * ms, Alpha: 2}, 70 * ms, 500 * ms},
	}
	for _, c := range cases {
		r := rand.New(rand.NewPCG(7, 7))
		const n = 20000
		xs := make([]time.Duration, n)
		for i := range xs {
			xs[i] = c.l.Sample(r)
		}
		sortDurations(xs)
		for _, q := range []struct {
			got, want time.Duration
		}{{xs[n/2], c.p50}, {xs[n*99/100], c.p99}} {
			if d := float64(q.got-q.want) / float64(q.want); d < -0.15 || d > 0.15 {
				t.Errorf("%s: quantile %v, want ~%v", c.name, q.got, q.want)
			}
		}
		// Same seed, same draws.
		r2 := rand.New(rand.NewPCG(7, 7))
		if got := c.l.Sample(r2); got != firstSample(c.l) {
			t.Errorf("%s: not reproducible", c.name)
		}
	}
}

func firstSample(l Latency) time.Duration { return l.Sample(rand.New(rand.NewPCG(7, 7))) }

func sortDurations(xs []time.Duration) { sortSlice(xs) }

// TestContention: the USL's factor, as a recipe gives it.
func TestContention(t *testing.T) {
	rs, err := Parse([]byte(`{"stages": [{"status": 200, "latency": "40ms", "contention": {"sigma": 0.05, "kappa": 0.01}}]}`))
	if err != nil {
		t.Fatal(err)
	}
	c := rs[0].Stages[0].Contention
	if c != (Contention{Sigma: 0.05, Kappa: 0.01}) || !c.Any() {
		t.Fatalf("parsed %+v", c)
	}
	for _, x := range []struct {
		n    int
		want time.Duration
	}{{0, 40 * time.Millisecond}, {1, 40 * time.Millisecond}, {2, 40 * time.Millisecond * 107 / 100}, {8, 40 * time.Millisecond * 191 / 100}} {
		if got := c.Scale(40*time.Millisecond, x.n); (got - x.want).Abs() > time.Microsecond {
			t.Errorf("%d in service: %v, want %v", x.n, got, x.want)
		}
	}
	if got := c.Scale(time.Hour, 1_000_000); got != MaxDuration {
		t.Errorf("capped at %v, got %v", MaxDuration, got)
	}
	if (Contention{}).Any() || (Contention{}).Scale(time.Second, 50) != time.Second {
		t.Error("the zero contention slows")
	}
}
