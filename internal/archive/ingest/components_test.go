package ingest

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/loadlab/loadlab/internal/experiment/summary"
)

// Each matrix cell's run stores the configs and recipe copies its steps
// ran with (the rewrite shows them): its own steps' rendered configs, and
// the recipe of an origin started before its first step and still running;
// never another cell's. The content hash leaves them out, so a folder an
// older loadlab archived (which stored none) is found already stored.
func TestCellStoresItsComponentsConfigs(t *testing.T) {
	dir, sum := copyRun(t)
	// An origin started in the first step and kept running, a proxy with
	// its config rendered at each step (recorded with the folder's path at
	// the time, which need not be where it is now).
	extra := map[string]string{"components/origin-recipe.json": `{"stages": []}`}
	sum.Steps[0].Components = append([]summary.ComponentRun{{Name: "origin", Kind: "origin",
		File: "/gone/run/components/origin-recipe.json", Log: "components/origin-step01.log"}}, sum.Steps[0].Components...)
	if err := os.WriteFile(filepath.Join(dir, "components/origin-step01.log"), []byte("origin listening\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for i, st := range sum.Steps {
		name := fmt.Sprintf("components/proxy-step%02d.yaml", i+1)
		st.Components = append(st.Components, summary.ComponentRun{Name: "proxy", Kind: "proxy", File: filepath.Join("run", name)})
		extra[name] = fmt.Sprintf("pools: {p: {size: %d}}\n", i+1)
	}
	if err := summary.Write(dir, sum); err != nil {
		t.Fatal(err)
	}
	contents := func() []string {
		t.Helper()
		bs, _, err := Bundles(context.Background(), []string{dir}, Options{})
		if err != nil || len(bs) != 6 {
			t.Fatalf("%v, %d runs", err, len(bs))
		}
		var out []string
		for _, b := range bs {
			out = append(out, b.Run.Content)
		}
		return out
	}
	before := contents() // as an older loadlab saw the folder: no configs, no recipe copy
	for name, text := range extra {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	bs, _, err := Bundles(context.Background(), []string{dir}, Options{})
	if err != nil || len(bs) != 6 {
		t.Fatalf("%v, %d runs", err, len(bs))
	}
	for i, b := range bs {
		var comps []string
		for _, f := range b.Files {
			if strings.HasPrefix(f.Name, "components/") {
				comps = append(comps, f.Name)
			}
		}
		slices.Sort(comps)
		want := []string{sum.Steps[i].Components[len(sum.Steps[i].Components)-2].Log, "components/origin-recipe.json",
			fmt.Sprintf("components/proxy-step%02d.yaml", i+1)}
		if i == 0 {
			want = append(want, "components/origin-step01.log")
		}
		slices.Sort(want)
		if !slices.Equal(comps, want) {
			t.Errorf("cell %d stores %q, want %q", i+1, comps, want)
		}
		for _, f := range b.Files {
			if text, ok := extra[f.Name]; ok && readAll(t, f) != text {
				t.Errorf("cell %d: %s stored as %q", i+1, f.Name, readAll(t, f))
			}
		}
		if b.Run.Content != before[i] {
			t.Errorf("cell %d: the content hash changed with the configs stored", i+1)
		}
	}
}
