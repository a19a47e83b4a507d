// Package resultstest writes loadlab results files for the tests of the
// packages that read them (report, plot, compare, shardset): one helper
// instead of a copy in each.
package resultstest

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/loadlab/loadlab/internal/results"
)

// WriteFile writes rs as a loadlab stream with header meta to path
// (creating its folder), failing the test on any error.
func WriteFile(t testing.TB, path string, meta results.Meta, rs []results.Result) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	w, err := results.NewWriter(f, meta)
	if err != nil {
		t.Fatal(err)
	}
	for i := range rs {
		if err := w.Encode(&rs[i]); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}
