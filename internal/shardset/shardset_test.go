package shardset

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/loadlab/loadlab/internal/badinput"
	"github.com/loadlab/loadlab/internal/results"
)

var t0 = time.Date(2026, 11, 24, 15, 0, 0, 0, time.UTC)

// shard is the record `loadlab attack -shard i/3 -start-at at` writes.
func shard(seg string, at time.Time) *results.Shard {
	return &results.Shard{Segment: seg, Sequence: "0,1/3,2/3,1", Schedule: "100/s for 2s", StartAt: at}
}

func members() []Member {
	return []Member{
		{Name: "run/shard-1-of-3.lll", Shard: shard("0:1/3", t0)},
		{Name: "run/shard-2-of-3.lll", Shard: shard("1/3:2/3", t0)},
		{Name: "run/shard-3-of-3.lll", Shard: shard("2/3:1", t0)},
	}
}

func TestCheck(t *testing.T) {
	ms := members()
	if owned, err := Check(ms, false); err != nil || owned != nil {
		t.Fatalf("the whole attack: owned %v, %v", owned != nil, err)
	}
	owned, err := Check([]Member{ms[0], ms[2]}, false)
	if err != nil || owned == nil {
		t.Fatalf("two of three shards: owned %v, %v", owned != nil, err)
	}
	for seq, want := range map[uint64]bool{0: true, 1: false, 2: true} {
		if owned(seq) != want {
			t.Errorf("owned(%d) = %v", seq, !want)
		}
	}
	if owned, err := Check([]Member{{Name: "a.lll"}, {Name: "b.bin"}}, false); err != nil || owned != nil {
		t.Errorf("no shards: %v", err)
	}
	other := Member{Name: "other.lll", Shard: shard("1/3:2/3", t0.Add(time.Minute))}
	_, err = Check([]Member{ms[0], other}, false)
	var bad *badinput.Error
	if !errors.As(err, &bad) || strings.Contains(err.Error(), "\n") ||
		!strings.Contains(err.Error(), "run/shard-1-of-3.lll and other.lll are shards of different attacks") ||
		!strings.Contains(err.Error(), "(start 2026-11-24T15:00:00Z vs 2026-11-24T15:01:00Z)") {
		t.Errorf("different attacks: %v", err)
	}
	// Start instants microseconds apart (relative -start-at resolved in
	// each process, before it was rounded) read differently, and only the
	// field that differs is named.
	near := Member{Name: "near.lll", Shard: shard("1/3:2/3", t0.Add(93*time.Microsecond))}
	if _, err := Check([]Member{ms[0], near}, false); err == nil ||
		!strings.HasSuffix(err.Error(), "are shards of different attacks (start 2026-11-24T15:00:00Z vs 2026-11-24T15:00:00.000093Z): give the shards of one attack, or -force to merge them anyway") {
		t.Errorf("near start instants: %v", err)
	}
	sched := Member{Name: "sched.lll", Shard: shard("1/3:2/3", t0)}
	sched.Shard.Schedule = "200/s for 1m0s"
	if _, err := Check([]Member{ms[0], sched}, false); err == nil || !strings.Contains(err.Error(), `(schedule "`) || strings.Contains(err.Error(), "start ") {
		t.Errorf("different schedules: %v", err)
	}
	if _, err := Check([]Member{ms[0], other}, true); err != nil {
		t.Errorf("forced: %v", err)
	}
	if _, err := Check([]Member{ms[0], {Name: "whole.lll"}}, false); err == nil || !strings.Contains(err.Error(), "1 inputs are shards of a split attack and 1 are not") {
		t.Errorf("shards and a whole attack: %v", err)
	}
	broken := Member{Name: "broken.lll", Shard: shard("1/2:1", t0)}
	if _, err := Check([]Member{ms[0], broken}, true); err == nil || !strings.Contains(err.Error(), "broken.lll") {
		t.Errorf("a segment that is not one of the cuts: %v", err)
	}
}

func TestGroup(t *testing.T) {
	ms := members()
	in := []Member{{Name: "before.lll"}, ms[0], ms[1], {Name: "vegeta.bin"}, ms[2]}
	sets, err := Group(in, false)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range sets {
		got = append(got, strings.Join(s.Names(), "+"))
	}
	want := "before.lll | run/shard-1-of-3.lll+run/shard-2-of-3.lll+run/shard-3-of-3.lll | vegeta.bin"
	if strings.Join(got, " | ") != want {
		t.Errorf("runs %q, want %q", strings.Join(got, " | "), want)
	}
	if sets[0].Shards() || !sets[1].Shards() || !sets[1].Start().Equal(t0) || !sets[0].Start().IsZero() {
		t.Errorf("sets: %+v", sets)
	}
	other := Member{Name: "other.lll", Shard: shard("0:1/3", t0.Add(-time.Second))}
	_, err = Group(append(in, other), false)
	_, want2 := Check([]Member{ms[0], other}, false)
	if err == nil || err.Error() != want2.Error() {
		t.Errorf("different attacks: %v, want report's %v", err, want2)
	}
	sets, err = Group(append(in, other), true)
	if err != nil || len(sets) != 3 || len(sets[1].Members) != 4 || !sets[1].Start().Equal(t0.Add(-time.Second)) {
		t.Errorf("forced: %v %+v", err, sets)
	}
	if sets, err := Group([]Member{{Name: "a"}, {Name: "b"}}, false); err != nil || len(sets) != 2 {
		t.Errorf("plain files: %v %v", sets, err)
	}
}

func TestName(t *testing.T) {
	for _, c := range []struct {
		in   []string
		want string
	}{
		{[]string{"run-7/shard-1-of-3.lll", "run-7/shard-2-of-3.lll", "run-7/shard-3-of-3.lll"}, "run-7/shard-*-of-3.lll"},
		{[]string{"loadlab-attack-shard-0.lll", "loadlab-attack-shard-1.lll"}, "loadlab-attack-shard-*.lll"},
		{[]string{"shard10.lll", "shard11.lll", "shard9.lll"}, "shard*.lll"},
		{[]string{"ab.lll", "abb.lll"}, "ab*.lll"},
		{[]string{"x.lll", "y.lll"}, "x.lll and 1 more"},
		{[]string{"only.lll"}, "only.lll"},
		{[]string{"é1.lll", "é2.lll"}, "é*.lll"},
		{nil, ""},
	} {
		if got := Name(c.in); got != c.want {
			t.Errorf("Name(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}
