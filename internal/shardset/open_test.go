package shardset

import (
	"path/filepath"
	"testing"

	"github.com/loadlab/loadlab/internal/results"
	"github.com/loadlab/loadlab/internal/results/resultstest"
)

func TestOpenReadsTheShardRecord(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, meta results.Meta) string {
		p := filepath.Join(dir, name)
		resultstest.WriteFile(t, p, meta, nil)
		return p
	}
	a := write("a.lll", results.Meta{Shard: shard("0:1/3", t0)})
	b := write("b.lll", results.Meta{})
	ms, err := Open([]string{a, b})
	if err != nil {
		t.Fatal(err)
	}
	if len(ms) != 2 || ms[0].Name != a || ms[0].Shard == nil || ms[0].Shard.Segment != "0:1/3" || ms[1].Shard != nil {
		t.Errorf("members %+v", ms)
	}
	if _, err := Open([]string{filepath.Join(dir, "nope.lll")}); err == nil {
		t.Error("a missing file opened")
	}
}
