package report

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/loadlab/loadlab/internal/attack/segment"
	"github.com/loadlab/loadlab/internal/badinput"
	"github.com/loadlab/loadlab/internal/metrics"
	"github.com/loadlab/loadlab/internal/results"
)

// CheckShards makes sure inputs that are shards of a split attack belong
// to the same attack (the same global schedule, cuts and start instant):
// merged, they are then one run, and owned says which sequence numbers
// they were to send (nil when the shards cover the whole schedule, or
// when no input is a shard). force merges anyway.
func CheckShards(inputs []Input, force bool) (owned func(uint64) bool, err error) {
	var first *Input
	var segs []*segment.Segment
	plain := 0
	for i := range inputs {
		in := &inputs[i]
		if in.Shard == nil {
			plain++
			continue
		}
		if first == nil {
			first = in
		} else if !first.Shard.SameAttack(in.Shard) && !force {
			return nil, badinput.Errorf("%s and %s are shards of different attacks (%s, start %s, cuts %s vs %s, start %s, cuts %s): give the shards of one attack, or -force to merge them anyway",
				first.Name, in.Name, first.Shard.Schedule, first.Shard.StartAt.Format(time.RFC3339), first.Shard.Sequence,
				in.Shard.Schedule, in.Shard.StartAt.Format(time.RFC3339), in.Shard.Sequence)
		}
		seg, err := segment.Parse(in.Shard.Segment, in.Shard.Sequence)
		if err != nil {
			return nil, badinput.At(in.Name, 0, "shard record: %v", err)
		}
		segs = append(segs, seg)
	}
	if first == nil {
		return nil, nil
	}
	if plain > 0 && !force {
		return nil, badinput.Errorf("%d inputs are shards of a split attack and %d are not: report them apart, or -force to merge them", len(segs), plain)
	}
	covered := map[string]bool{}
	for _, s := range segs {
		covered[s.String()] = true
	}
	if len(covered) == len(segs[0].Sequence)-1 || force {
		return nil, nil
	}
	return func(seq uint64) bool {
		for _, s := range segs {
			if s.Has(seq) {
				return true
			}
		}
		return false
	}, nil
}

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

func (t *shardTable) write(w io.Writer) error {
	fmt.Fprintln(w)
	tw := newTabWriter(w)
	fmt.Fprintf(tw, "Shard\tSegment\tHost\tRequests\tRate\tSuccess\t99\tmax\tLag max\tLate start\tErrors\n")
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
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%.2f\t%.2f%%\t%s\t%s\t%s\t%s\t%d\n", shortName(in.Name), seg, host, m.Requests, m.Rate, 100*m.Success,
			Round(m.Latencies.P99), Round(m.Latencies.Max), Round(m.Lag.Max), late, errs+m.ErrorsOmitted)
	}
	return tw.Flush()
}

func shortName(s string) string {
	if i := strings.LastIndexByte(s, '/'); i >= 0 {
		return s[i+1:]
	}
	return s
}
