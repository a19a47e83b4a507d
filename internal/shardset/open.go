package shardset

import "github.com/loadlab/loadlab/internal/results"

// Open reads the header of every results file (any format loadlab reads)
// and returns them as members, in order: a loadlab stream written by a
// shard of a split attack carries its shard record. Problems with a file
// are *badinput.Error values naming it.
func Open(paths []string) ([]Member, error) {
	out := make([]Member, 0, len(paths))
	for _, p := range paths {
		src, err := results.Open(p)
		if err != nil {
			return nil, err
		}
		m := Member{Name: p}
		if src.Meta != nil {
			m.Shard = src.Meta.Shard
		}
		src.Close()
		out = append(out, m)
	}
	return out, nil
}

// Files reads the headers of files given as one run and checks them as
// Check does: the shard files of one attack (or, forced, of several), or
// files that are not shards at all.
func Files(paths []string, force bool) (Set, error) {
	ms, err := Open(paths)
	if err != nil {
		return Set{}, err
	}
	if _, err := Check(ms, force); err != nil {
		return Set{}, err
	}
	return Set{Members: ms}, nil
}
