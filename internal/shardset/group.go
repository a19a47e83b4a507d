package shardset

import "time"

// Set is the files of one run: a single file, or the shard files of one
// split attack (of several attacks, when forced).
type Set struct {
	Members []Member
}

// Shards reports whether the set is made of shard files.
func (s Set) Shards() bool { return len(s.Members) > 0 && s.Members[0].Shard != nil }

// Start is the instant the set's attack anchored its schedule on, the
// earliest of them when shards of several attacks were forced together;
// zero when the set is not made of shard files.
func (s Set) Start() time.Time {
	var at time.Time
	for _, m := range s.Members {
		if m.Shard != nil && (at.IsZero() || m.Shard.StartAt.Before(at)) {
			at = m.Shard.StartAt
		}
	}
	return at
}

// Names returns the names of the set's files, in order.
func (s Set) Names() []string {
	out := make([]string, len(s.Members))
	for i, m := range s.Members {
		out[i] = m.Name
	}
	return out
}

// Group splits files given as several runs (plot's and compare's
// arguments) into runs, in order of first appearance: the shard files of
// one attack are one run, every other file is a run of its own. Shard
// files of different attacks are refused with Check's error unless force,
// which makes them one run, as report merges them.
func Group(members []Member, force bool) ([]Set, error) {
	var out []Set
	var shards []Member
	at := -1
	for _, m := range members {
		if m.Shard == nil {
			out = append(out, Set{Members: []Member{m}})
			continue
		}
		if at < 0 {
			at = len(out)
			out = append(out, Set{})
		}
		shards = append(shards, m)
	}
	if at < 0 {
		return out, nil
	}
	if _, err := Check(shards, force); err != nil {
		return nil, err
	}
	out[at].Members = shards
	return out, nil
}
