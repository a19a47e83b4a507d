package threshold

import (
	"strings"
	"testing"
)

type vals map[string]float64

func (v vals) Value(m string) (float64, bool) { f, ok := v[m]; return f, ok }

func TestParseAndCheck(t *testing.T) {
	measured := vals{"p99": 1.05, "p99.9": 2, "mean": 0.9, "success": 0.995, "errors": 0.005, "rps": 49.5, "requests": 500}
	for _, tc := range []struct {
		src      string
		metric   string
		scenario string
		value    float64
		pass     bool
	}{
		{"p99 < 1.1s", "p99", "", 1.1, true},
		{"p99<1s", "p99", "", 1, false},
		{"p(99.9) <= 2s", "p99.9", "", 2, true},
		{"mean < 900ms", "mean", "", 0.9, false},
		{"avg <= 900ms", "mean", "", 0.9, true},
		{"success > 99%", "success", "", 0.99, true},
		{"success >= 0.999", "success", "", 0.999, false},
		{"errors < 1%", "errors", "", 0.01, true},
		{"news: rps >= 49", "rps", "news", 49, true},
		{"requests == 500", "requests", "", 500, true},
		{" search : throughput > 50/s ", "rps", "search", 50, false},
	} {
		th, err := Parse(tc.src)
		if err != nil {
			t.Errorf("%q: %v", tc.src, err)
			continue
		}
		if th.Metric != tc.metric || th.Scenario != tc.scenario || th.Value < tc.value-1e-9 || th.Value > tc.value+1e-9 {
			t.Errorf("%q parsed as %+v", tc.src, th)
		}
		_, pass, ok := th.Check(measured)
		if !ok || pass != tc.pass {
			t.Errorf("%q: pass=%v ok=%v, want pass=%v", tc.src, pass, ok, tc.pass)
		}
	}
}

func TestParseFlow(t *testing.T) {
	measured := vals{"checks": 0.995, "check login: status 200": 1, "sessions_failed": 0.02, "sessions_dropped": 0, "p99": 0.25}
	for _, tc := range []struct {
		src, scenario, step, metric, check string
		pass                               bool
	}{
		{"login: p99 < 300ms", "login", "", "p99", "", true},
		{"shoppers: browse/search: p99 < 200ms", "shoppers", "browse/search", "p99", "", false},
		{"GET /home: p99 < 300ms", "GET /home", "", "p99", "", true},
		{"checks > 99%", "", "", "checks", "", true},
		{"check login: status 200 > 99%", "", "", "check", "login: status 200", true},
		{"shoppers: check login: status 200 >= 100%", "shoppers", "", "check", "login: status 200", true},
		{"sessions_failed < 1%", "", "", "sessions_failed", "", false},
		{"sessions_dropped < 1%", "", "", "sessions_dropped", "", true},
	} {
		th, err := Parse(tc.src)
		if err != nil {
			t.Errorf("%q: %v", tc.src, err)
			continue
		}
		if th.Scenario != tc.scenario || th.Step != tc.step || th.Metric != tc.metric || th.CheckName != tc.check || !th.Flow() && tc.metric != "p99" {
			t.Errorf("%q parsed as %+v", tc.src, th)
		}
		if _, pass, ok := th.Check(measured); !ok || pass != tc.pass {
			t.Errorf("%q: pass=%v ok=%v, want pass=%v", tc.src, pass, ok, tc.pass)
		}
	}
}

func TestParseErrors(t *testing.T) {
	for src, want := range map[string]string{
		"p99 1s":         "no comparison",
		"p99 < soon":     "want a duration",
		"success > 101%": "between 0% and 100%",
		"success > 2":    "fraction between 0 and 1",
		"latency < 1s":   "unknown metric",
		"< 1s":           "missing metric",
		"p99 <":          "missing value",
		"p99 = 1s":       "use ==",
		"p99 < 1s < 2s":  "only one comparison",
		": p99 < 1s":     "scenario or flow step name",
		"check > 99%":    "check needs a check's name",
		"rps > -1":       "non-negative",
		"p0 < 1s":        "unknown metric",
	} {
		_, err := Parse(src)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: got %v, want %q", src, err, want)
		}
	}
}

func TestFormat(t *testing.T) {
	a, _ := Parse("p99 < 1s")
	b, _ := Parse("success > 99%")
	if a.Format(1.2345) != "1.2345s" || b.Format(0.9912) != "99.12%" {
		t.Errorf("%s %s", a.Format(1.2345), b.Format(0.9912))
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{"p99 < 1.1s", "success > 99%", "news: rps >= 0.9", "p(99.9)<=2s", "errors < 0.01", "requests == 5"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		th, err := Parse(s)
		if err != nil {
			return
		}
		if th.Metric == "" || th.Op == "" || th.Value != th.Value {
			t.Fatalf("accepted %q as %+v", s, th)
		}
		_, _, ok := th.Check(vals{th.Metric: 1})
		if !ok {
			t.Fatalf("metric %q not looked up", th.Metric)
		}
	})
}
