package shardset

import (
	"reflect"
	"testing"
)

// TestAbsent: the shards a partial set lacks are named as -shard takes
// them (even cuts) or as -segment (uneven ones); a whole set and plain
// files lack nothing.
func TestAbsent(t *testing.T) {
	ms := members()
	uneven := func(seg string) Member {
		s := shard(seg, t0)
		s.Sequence = "0,1/4,1"
		return Member{Name: seg, Shard: s}
	}
	for _, c := range []struct {
		name string
		in   []Member
		want []string
	}{
		{"whole", ms, nil},
		{"first and last of three", []Member{ms[0], ms[2]}, []string{"2/3"}},
		{"only the second", []Member{ms[1]}, []string{"1/3", "3/3"}},
		{"plain files", []Member{{Name: "a.lll"}, {Name: "b.lll"}}, nil},
		{"uneven cuts", []Member{uneven("0:1/4")}, []string{"1/4:1"}},
	} {
		if got := Absent(c.in); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: Absent = %q, want %q", c.name, got, c.want)
		}
	}
}
