package recipe

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/loadlab/loadlab/internal/badinput"
)

func sortSlice(xs []time.Duration) { slices.Sort(xs) }

func FuzzParse(f *testing.F) {
	files, _ := filepath.Glob("testdata/*.json")
	for _, fn := range files {
		if b, err := os.ReadFile(fn); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte(`{"stages":[{"status":{"200":1,"503":2},"latency":{"distribution":"pareto","min":"1ms","alpha":1.5},"faults":{"truncate":{"probability":0.5,"fraction":0.1}}}]}`))
	f.Add([]byte(`{"stages":[{"status":200,"latency":"40ms","contention":{"sigma":0.05,"kappa":0.01}}]}`))
	f.Add([]byte(`[{"body":"<<1b>><<2kb>>","stages":[{"at":"1s","status":"404"}]}]`))
	f.Add([]byte(`[{"route":"/login","auth":"issue","stages":[{"status":200}]},{"route":"/l","auth":"require","list":{"total":45,"page_size":20},"stages":[{"status":200}]}]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		rs, err := Parse(data)
		if err != nil {
			if !badinput.Is(err) {
				t.Fatalf("error is not bad input: %v", err)
			}
			return
		}
		for _, r := range rs {
			if len(r.Stages) == 0 || r.Route == "" {
				t.Fatalf("accepted recipe without stages or route: %+v", r)
			}
			if l := r.List; l != nil && (l.Total < 0 || l.Total > MaxListTotal || l.PageSize < 1 || l.PageSize > MaxListPageSize) {
				t.Fatalf("bad list %+v", *l)
			}
			if (r.Auth == AuthIssue || r.List != nil) && (r.HasBody || r.HasRandom || r.Origin != "" || r.Gzip) {
				t.Fatalf("a route answering per request has a body of its own: %+v", r)
			}
			for _, s := range r.Stages {
				if len(s.Status.Codes) == 0 || s.Latency == nil {
					t.Fatalf("bad stage %+v", s)
				}
				if c := s.Contention; c.Sigma < 0 || c.Sigma > 1 || c.Kappa < 0 || c.Kappa > 1 || c.Scale(MaxDuration, 1000) > MaxDuration {
					t.Fatalf("bad contention %+v", c)
				}
			}
		}
	})
}

func FuzzParseDuration(f *testing.F) {
	for _, s := range []string{"0", "100ms", "1.5s", "2m", "1e9s", "..", "1s..2s", "-0", ".ms"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		lo, hi, err := ParseDurationRange(s)
		if err == nil && (lo < 0 || hi < lo || hi > MaxDuration) {
			t.Fatalf("%q -> %v..%v", s, lo, hi)
		}
	})
}

func FuzzParseSize(f *testing.F) {
	for _, s := range []string{"300kb", "1b", "64mb", "50kb..100kb", "9223372036854775807mb"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		lo, hi, err := ParseSizeRange(s)
		if err == nil && (lo < 0 || hi < lo || hi > MaxBodySize) {
			t.Fatalf("%q -> %d..%d", s, lo, hi)
		}
	})
}
