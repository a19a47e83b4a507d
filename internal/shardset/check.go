package shardset

import (
	"fmt"
	"strings"
	"time"

	"github.com/loadlab/loadlab/internal/attack/segment"
	"github.com/loadlab/loadlab/internal/badinput"
	"github.com/loadlab/loadlab/internal/results"
)

// Member is one results file as the shard-set check sees it: its name and
// its shard record (nil when the file is not a shard of a split attack).
type Member struct {
	Name  string
	Shard *results.Shard
}

// Check makes sure members given as one run that are shards of a split
// attack belong to the same attack (the same global schedule, cuts and
// start instant): merged, they are then one run, and owned says which
// sequence numbers they were to send (nil when the shards cover the whole
// schedule, or when no member is a shard). Shards of different attacks,
// and shard files mixed with whole attacks, are a *badinput.Error of one
// line naming the files; force merges anyway.
func Check(members []Member, force bool) (owned func(uint64) bool, err error) {
	var first *Member
	var segs []*segment.Segment
	plain := 0
	for i := range members {
		m := &members[i]
		if m.Shard == nil {
			plain++
			continue
		}
		if first == nil {
			first = m
		} else if !first.Shard.SameAttack(m.Shard) && !force {
			return nil, badinput.Errorf("%s and %s are shards of different attacks (%s): give the shards of one attack, or -force to merge them anyway",
				first.Name, m.Name, shardDifference(first.Shard, m.Shard))
		}
		seg, err := segment.Parse(m.Shard.Segment, m.Shard.Sequence)
		if err != nil {
			return nil, badinput.At(m.Name, 0, "shard record: %v", err)
		}
		segs = append(segs, seg)
	}
	if first == nil {
		return nil, nil
	}
	if plain > 0 && !force {
		return nil, badinput.Errorf("%d inputs are shards of a split attack and %d are not: give them apart, or -force to merge them", len(segs), plain)
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

// shardDifference names what differs between two shard records of
// different attacks, each field with both values: "start
// 2026-11-24T15:00:02.000001Z vs 2026-11-24T15:00:02.000093Z". Start
// instants are written to the nanosecond, so two that differ never read
// the same.
func shardDifference(a, b *results.Shard) string {
	var parts []string
	if a.Schedule != b.Schedule {
		parts = append(parts, fmt.Sprintf("schedule %q vs %q", a.Schedule, b.Schedule))
	}
	if a.Sequence != b.Sequence {
		parts = append(parts, fmt.Sprintf("cuts %s vs %s", a.Sequence, b.Sequence))
	}
	if !a.StartAt.Equal(b.StartAt) {
		parts = append(parts, fmt.Sprintf("start %s vs %s", a.StartAt.UTC().Format(time.RFC3339Nano), b.StartAt.UTC().Format(time.RFC3339Nano)))
	}
	return strings.Join(parts, ", ")
}
