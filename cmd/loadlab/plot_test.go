package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestPlotAndCompareCommands(t *testing.T) {
	t.Parallel() // reads and writes only files of its own
	dir := t.TempDir()
	mixed, err := os.ReadFile(vegetaVector("mixed.bin"))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name     string
		stdin    []byte
		args     []string
		code     int
		stdout   []string // substrings
		stderr   string
		files    []string // written, relative to dir
		fileHave string   // substring of the first file
	}{
		{"plot html", nil, []string{"plot", "-title", "two runs", "-output", filepath.Join(dir, "p.html"), vegetaVector("basic.bin"), vegetaVector("mixed.bin")}, 0,
			nil, "", []string{"p.html"}, "<title>two runs</title>"},
		{"plot svg by extension", nil, []string{"plot", "-output", filepath.Join(dir, "p.svg"), vegetaVector("mixed.bin")}, 0,
			nil, "", []string{"p.svg"}, "<svg xmlns"},
		{"plot svg to stdout from stdin", mixed, []string{"plot", "-format", "svg"}, 0,
			[]string{"<svg xmlns", ">error</text>"}, "", nil, ""},
		{"plot torn stdin", mixed[:len(mixed)-7], []string{"plot", "-format", "svg"}, 0,
			[]string{"<svg xmlns"}, "warning: stdin: torn tail", nil, ""},
		{"plot bad format", nil, []string{"plot", "-format", "png", vegetaVector("mixed.bin")}, 2, nil, `-format: unknown format "png"`, nil, ""},
		{"plot missing file", nil, []string{"plot", filepath.Join(dir, "nope.bin")}, 2, nil, "nope.bin", nil, ""},
		{"plot not results", []byte("hello\n"), []string{"plot"}, 2, nil, "stdin: not a results file", nil, ""},
		{"plot vegeta's flags", nil, []string{"plot", "--title", "50qps", "--threshold", "1000", "-output", filepath.Join(dir, "v.html"), vegetaVector("mixed.bin")}, 0,
			nil, "", []string{"v.html"}, "<title>50qps</title>"},
		{"plot bad threshold", nil, []string{"plot", "-threshold", "1", vegetaVector("mixed.bin")}, 2, nil, "-threshold: want 2 points or more, got 1", nil, ""},
		{"plot threshold against resolution", nil, []string{"plot", "-threshold", "100", "-resolution", "20", vegetaVector("mixed.bin")}, 2, nil, "-threshold: -threshold 100 means -resolution 50", nil, ""},
		{"plot help", nil, []string{"plot", "-help"}, 0, []string{"Examples:"}, "", nil, ""},
		{"compare", nil, []string{"compare", "-resamples", "200", "-output", filepath.Join(dir, "cmp"), vegetaVector("basic.bin"), vegetaVector("mixed.bin"), vegetaVector("basic.json")}, 0,
			[]string{"Baseline: basic.bin", "mixed.bin", "slower", "worse", "basic.json", "no difference", "Method: runs judged, not requests"},
			"wrote", []string{"cmp/percentiles.svg", "cmp/compare.html", "cmp/compare.md"}, "<svg"},
		{"compare markdown, baseline by name", nil, []string{"compare", "-resamples", "100", "-format", "markdown", "-baseline", "mixed.bin", vegetaVector("basic.bin"), vegetaVector("mixed.bin")}, 0,
			[]string{"| Run | Stat |", "| basic.bin | p99 |", "faster", "Baseline: mixed.bin"}, "", nil, ""},
		{"compare folders step by step", nil, []string{"compare", "-resamples", "50", "-output", filepath.Join(dir, "cmp2"), filepath.Join(dir, "before"), filepath.Join(dir, "after")}, 0,
			[]string{"== steps/01/search.bin ==", "Baseline: before", "after", "== steps/02/search.bin =="}, "wrote", []string{"cmp2/percentiles-01-steps-01-search-bin.svg", "cmp2/percentiles-02-steps-02-search-bin.svg", "cmp2/compare.html"}, "<svg"},
		{"compare one run", nil, []string{"compare", vegetaVector("basic.bin")}, 2, nil, "need at least two runs", nil, ""},
		{"compare bad baseline", nil, []string{"compare", "-baseline", "3", vegetaVector("basic.bin"), vegetaVector("mixed.bin")}, 2, nil, "-baseline: position 3 is out of range", nil, ""},
		{"compare bad resamples", nil, []string{"compare", "-resamples", "5", vegetaVector("basic.bin"), vegetaVector("mixed.bin")}, 2, nil, "-resamples: must be between", nil, ""},
		{"compare not results", nil, []string{"compare", vegetaVector("basic.bin"), "plot_test.go"}, 2, nil, "plot_test.go: not a results file", nil, ""},
		{"compare help", nil, []string{"compare", "-help"}, 0, []string{"Examples:"}, "", nil, ""},
	}
	basic, err := os.ReadFile(vegetaVector("basic.bin"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"before/steps/01/search.bin", "before/steps/02/search.bin", "after/steps/01/search.bin", "after/steps/02/search.bin"} {
		p := filepath.Join(dir, f)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, map[bool][]byte{true: basic, false: mixed}[strings.HasPrefix(f, "before")], 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errs := runCLI(t, tc.stdin, tc.args...)
			if code != tc.code {
				t.Fatalf("exit %d, want %d; stderr: %s", code, tc.code, errs)
			}
			for _, s := range tc.stdout {
				if !strings.Contains(out, s) {
					t.Errorf("stdout lacks %q:\n%.2000s", s, out)
				}
			}
			if !strings.Contains(errs, tc.stderr) {
				t.Errorf("stderr %q lacks %q", errs, tc.stderr)
			}
			if tc.code == 2 && strings.Count(strings.TrimSpace(errs), "\n") > 0 && !strings.Contains(errs, "Usage") {
				t.Errorf("bad input should print one line, got:\n%s", errs)
			}
			for i, f := range tc.files {
				b, err := os.ReadFile(filepath.Join(dir, f))
				if err != nil {
					t.Fatal(err)
				}
				if i == 0 && !strings.Contains(string(b), tc.fileHave) {
					t.Errorf("%s lacks %q", f, tc.fileHave)
				}
			}
		})
	}
}
