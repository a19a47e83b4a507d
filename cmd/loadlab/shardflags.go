package main

import (
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/loadlab/loadlab/internal/attack"
	"github.com/loadlab/loadlab/internal/attack/segment"
	"github.com/loadlab/loadlab/internal/badinput"
	"github.com/loadlab/loadlab/internal/results"
)

// startAtPast is how far in the past an absolute -start-at may be: a shard
// started a little late is told so in its results; one started long after
// is most likely a mistake (a stale command line).
const startAtPast = 10 * time.Second

// shardOptions turns -shard, -segment, -segments and -start-at into the
// attack's segment and start instant, and records them in the results'
// header.
func (f *attackFlags) shardOptions(o *attack.Options, meta *results.Meta, now time.Time) error {
	var seg *segment.Segment
	var err error
	if f.shardIndex >= 0 || f.shards > 0 {
		// -shard-index K -shards N: the 0-based form, as Kubernetes'
		// JOB_COMPLETION_INDEX gives it.
		if f.shard != "" || f.segment != "" {
			return badinput.Field("-shard-index", "give -shard-index with -shards, or -shard i/n, not both")
		}
		if f.shardIndex < 0 || f.shards < 1 || f.shardIndex >= f.shards {
			return badinput.Field("-shard-index", "want 0 <= -shard-index < -shards, got %d of %d", f.shardIndex, f.shards)
		}
		f.shard = fmt.Sprintf("%d/%d", f.shardIndex+1, f.shards)
	}
	switch {
	case f.shard != "" && (f.segment != "" || f.segments != ""):
		return badinput.Field("-shard", "give -shard i/n or -segment (with -segments), not both")
	case f.shard != "":
		if seg, err = segment.ParseShard(f.shard); err != nil {
			return badinput.Field("-shard", "%v", err)
		}
	case f.segment != "":
		if seg, err = segment.Parse(f.segment, f.segments); err != nil {
			return badinput.Field("-segment", "%v", err)
		}
	case f.segments != "":
		return badinput.Field("-segments", "gives the cuts of every shard; say which segment is this one's with -segment")
	}
	if f.startAt != "" {
		at, err := parseStartAt(f.startAt, now)
		if err != nil {
			return err
		}
		o.StartAt = at
	}
	if seg == nil {
		return nil
	}
	o.Segment = seg
	if o.StartAt.IsZero() {
		// Shards must share an instant; alone, "now" is what the user meant.
		o.StartAt = now
	}
	host := f.shardHost
	if host == "" {
		host, _ = os.Hostname()
	}
	sched := f.rate
	if f.steps != "" {
		sched = "steps " + f.steps + " every " + f.stepDuration.String()
	}
	meta.Shard = &results.Shard{Segment: seg.String(), Sequence: seg.SequenceString(),
		Schedule: sched + " for " + f.duration.String(), StartAt: o.StartAt.UTC(), Host: host}
	if late := now.Sub(o.StartAt); late > 0 {
		meta.Shard.LateBy = late
	}
	return nil
}

// startAtBoundary is what a relative -start-at is rounded up to: shards
// started together by hand (or by a loop, or a fleet's ssh sessions)
// resolve "now + 2s" microseconds to milliseconds apart, and rounded up to
// the next whole second they agree on one instant, unless their "now +
// 2s" fall on either side of a second's boundary.
const startAtBoundary = time.Second

// parseStartAt reads -start-at: RFC 3339, or +DURATION from now, rounded
// up to the next whole second (startAtBoundary).
func parseStartAt(s string, now time.Time) (time.Time, error) {
	if rest, ok := strings.CutPrefix(s, "+"); ok {
		d, err := time.ParseDuration(rest)
		if err != nil || d < 0 {
			return time.Time{}, badinput.Field("-start-at", "want +DURATION such as +30s, got %q", s)
		}
		at := now.Add(d)
		if r := at.Truncate(startAtBoundary); r.Before(at) {
			at = r.Add(startAtBoundary)
		}
		return at, nil
	}
	at, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}, badinput.Field("-start-at", "want an RFC 3339 time such as 2026-11-24T15:00:00Z, or +30s, got %q", s)
	}
	if now.Sub(at) > startAtPast {
		return time.Time{}, badinput.Field("-start-at", "%s is %s in the past: give a time to come, or +30s", s, now.Sub(at).Round(time.Second))
	}
	return at, nil
}
