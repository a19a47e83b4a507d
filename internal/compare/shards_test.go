package compare

import (
	"bytes"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/loadlab/loadlab/internal/attack/segment"
	"github.com/loadlab/loadlab/internal/metrics"
	"github.com/loadlab/loadlab/internal/results"
	"github.com/loadlab/loadlab/internal/results/resultstest"
)

// writeShards writes n shard files of a split attack of total requests
// starting at start, as `loadlab attack -shard i/n` would: each global
// sequence number in the file of the shard the segment deals it to.
func writeShards(t *testing.T, dir, prefix string, n, total int, start time.Time) []string {
	t.Helper()
	var out []string
	for i := 1; i <= n; i++ {
		seg, err := segment.Shard(i, n)
		if err != nil {
			t.Fatal(err)
		}
		meta := results.Meta{Shard: &results.Shard{Segment: seg.String(), Sequence: seg.SequenceString(), Schedule: "100/s for 10s", StartAt: start}}
		var rs []results.Result
		for k := range total {
			if seg.Has(uint64(k)) {
				due := start.Add(time.Duration(k) * 10 * time.Millisecond)
				rs = append(rs, results.Result{Seq: uint64(k), Due: due, Sent: due, Latency: time.Duration(1+k%10) * time.Millisecond, Code: 200})
			}
		}
		p := filepath.Join(dir, fmt.Sprintf("%s%d.lll", prefix, i))
		resultstest.WriteFile(t, p, meta, rs)
		out = append(out, p)
	}
	return out
}

func TestLoadShardSets(t *testing.T) {
	dir := t.TempDir()
	t1 := time.Date(2026, 11, 24, 15, 0, 0, 0, time.UTC)
	a := writeShards(t, dir, "a-", 3, 1000, t1)
	b := writeShards(t, dir, "b-", 2, 800, t1.Add(time.Hour))
	plain := filepath.Join(dir, "plain.lll")
	resultstest.WriteFile(t, plain, results.Meta{}, []results.Result{{Sent: t1, Latency: time.Millisecond, Code: 200}})
	fleet := filepath.Join(dir, "run-7")
	writeShards(t, fleet, "shard-", 3, 600, t1)
	exp := filepath.Join(dir, "exp")
	writeShards(t, filepath.Join(exp, "steps", "01"), "search-", 2, 400, t1)
	resultstest.WriteFile(t, filepath.Join(exp, "steps", "01", "news.lll"), results.Meta{}, []results.Result{{Sent: t1, Latency: time.Millisecond, Code: 200}})

	load := func(named []Named, args []string, force bool) ([]*Run, error) {
		return Load(named, args, LoadOptions{Basis: metrics.FromDue, Force: force})
	}
	// desc is "name[group] requests/files" of each run; want's names may
	// leave out the folders they are in.
	desc := func(runs []*Run, want string) (string, bool) {
		var parts []string
		ws := strings.Split(want, ", ")
		ok := len(ws) == len(runs)
		for i, r := range runs {
			parts = append(parts, fmt.Sprintf("%s[%s] %d/%d", r.Name, r.Group, r.N(), len(r.Files)))
			ok = ok && strings.HasSuffix(parts[i], ws[i])
		}
		return strings.Join(parts, ", "), ok
	}
	for _, c := range []struct {
		name  string
		named []Named
		args  []string
		force bool
		want  string
		err   string
	}{
		{"shards and a file", nil, []string{a[0], plain, a[2], a[1]}, false, "a-*.lll[] 1000/3, plain.lll[] 1/1", ""},
		{"two of three shards", nil, []string{plain, a[0], a[2]}, false, "plain.lll[] 1/1, a-*.lll[] 667/2", ""},
		{"shards of two attacks", nil, []string{a[0], a[1], b[0]}, false, "", "a-1.lll and " + b[0] + " are shards of different attacks"},
		{"forced", nil, []string{a[0], a[1], b[0]}, true, string(filepath.Separator) + "*.lll[] 1067/3", ""},
		{"named", []Named{{"before", a}, {"after", b}}, []string{plain}, false, "before[] 1000/3, after[] 800/2, plain.lll[] 1/1", ""},
		{"named, two attacks", []Named{{"x", []string{a[0], b[0]}}}, nil, false, "", "a-1.lll and " + b[0] + " are shards of different attacks"},
		{"named, shards and a whole attack", []Named{{"x", []string{a[0], plain}}}, nil, false, "", "1 inputs are shards of a split attack and 1 are not"},
		{"a fleet's folder is one run", nil, []string{fleet, plain}, false, "run-7[] 600/3, plain.lll[] 1/1", ""},
		{"a folder of scenarios", nil, []string{exp}, false, "news.lll[news] 1/1, search-*.lll[search-*] 400/2", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			runs, err := load(c.named, c.args, c.force)
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("err %v, want %q", err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got, ok := desc(runs, c.want); !ok {
				t.Errorf("runs %s, want %s", got, c.want)
			}
		})
	}

	runs, err := load([]Named{{"before", a}, {"after", b}}, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := Compare(runs[0], runs[1:], Options{Resamples: 20}).WriteText(&buf); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), "Baseline: before\nRequests: before 1000 (3 files), after 800 (2 files)\n") {
		t.Errorf("text:\n%s", buf.String())
	}
}
