package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/loadlab/loadlab/internal/attack/segment"
	"github.com/loadlab/loadlab/internal/metrics"
	"github.com/loadlab/loadlab/internal/results"
)

// shardTable collects each shard's figures while the merged report reads
// them, so that a slow or late shard shows.
type shardTable struct {
	merge  *Merge
	inputs []Input
	m      []*metrics.Metrics
}

func newShardTable(mg *Merge, o metrics.Options) *shardTable {
	t := &shardTable{merge: mg, inputs: mg.inputs}
	o.NoBreakdown = true
	for range mg.inputs {
		t.m = append(t.m, metrics.NewWith(o))
	}
	return t
}

// Add counts r in the table row of the input it came from.
func (t *shardTable) Add(r *results.Result) { t.m[t.merge.Source()].Add(r) }

// write prints the table; scheduled is the merged run's end of schedule
// (its highest sequence number + 1, 0 when unknown), against which each
// shard's missing requests are counted: a shard killed or cut off before
// the end shows them.
func (t *shardTable) write(w io.Writer, scheduled uint64) error {
	fmt.Fprintln(w)
	tw := newTabWriter(w)
	fmt.Fprintf(tw, "Shard\tSegment\tHost\tRequests\tMissing\tRate\tSuccess\t99\tmax\tLag max\tLate start\tErrors\n")
	cut := 0
	for i, in := range t.inputs {
		m := t.m[i]
		m.Close()
		seg, host, late := "-", "-", "-"
		if s := in.Shard; s != nil {
			seg, host = s.Segment, s.Host
			late = "on time"
			if s.LateBy > 0 {
				late = Round(s.LateBy).String()
			}
		}
		var errs uint64
		for _, e := range m.Errors {
			errs += e.Count
		}
		missing := "-"
		if n, ok := shardMissing(in.Shard, m, scheduled); ok {
			missing = fmt.Sprint(n)
			if n > 0 {
				cut++
			}
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%s\t%.2f\t%.2f%%\t%s\t%s\t%s\t%s\t%d\n", shortName(in.Name), seg, host, m.Requests, missing, m.Rate, 100*m.Success,
			Round(m.Latencies.P99), Round(m.Latencies.Max), Round(m.Lag.Max), late, errs+m.ErrorsOmitted)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if cut > 0 {
		fmt.Fprintf(w, "%d shard(s) did not record every request of their share (killed or cut off before the end?): the merged figures cover what was recorded.\n", cut)
	}
	return nil
}

func shortName(s string) string {
	if i := strings.LastIndexByte(s, '/'); i >= 0 {
		return s[i+1:]
	}
	return s
}

// shardMissing is how many of a shard's requests below scheduled it never
// recorded (its share of the schedule so far, less what it recorded).
func shardMissing(sh *results.Shard, m *metrics.Metrics, scheduled uint64) (uint64, bool) {
	if sh == nil || scheduled == 0 {
		return 0, false
	}
	seg, err := segment.Parse(sh.Segment, sh.Sequence)
	if err != nil {
		return 0, false
	}
	want := seg.Count(scheduled)
	if m.Requests >= want {
		return 0, true
	}
	return want - m.Requests, true
}
