package compare

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/loadlab/loadlab/internal/badinput"
	"github.com/loadlab/loadlab/internal/metrics"
	"github.com/loadlab/loadlab/internal/results"
)

// Load reads the runs named on a command line. A results file (loadlab
// stream, or vegeta gob, CSV or JSON) is one run named by its path. A
// folder, such as an experiment's output folder, contributes one run per
// loadlab stream or vegeta gob file found in it (recursively, in path
// order), named by the folder and the file's path inside it; a folder with
// a single such file is one run named by the folder.
//
// Runs are compared like with like, so each gets a Group: files named
// directly share the group "". Within a single folder the group is the
// file's name without extension, the scenario (steps/01/search.lll and
// steps/02/search.lll are compared, not search with news). With several
// folders it is the file's path inside its folder, so that before/ and
// after/ are compared step by step.
//
// Latencies are measured from basis. A stream that ends in a torn or
// corrupt block keeps the results before it and warn is told. Unreadable
// or unrecognised files are *badinput.Error.
func Load(args []string, basis metrics.Basis, warn func(string)) ([]*Run, error) {
	if warn == nil {
		warn = func(string) {}
	}
	folders := 0
	for _, arg := range args {
		if st, err := os.Stat(arg); err == nil && st.IsDir() {
			folders++
		}
	}
	var runs []*Run
	for _, arg := range args {
		st, err := os.Stat(arg)
		if err != nil {
			return nil, badinput.Wrap(arg, err)
		}
		if !st.IsDir() {
			r, err := loadFile(arg, filepath.Clean(arg), basis, warn)
			if err != nil {
				return nil, err
			}
			runs = append(runs, r)
			continue
		}
		files, err := findResults(arg)
		if err != nil {
			return nil, err
		}
		if len(files) == 0 {
			return nil, &badinput.Error{File: arg, Msg: "folder holds no loadlab results stream or vegeta gob file"}
		}
		for _, f := range files {
			name := filepath.Clean(arg)
			rel, _ := filepath.Rel(arg, f)
			if len(files) > 1 {
				name = filepath.Join(name, rel)
			}
			r, err := loadFile(f, name, basis, warn)
			if err != nil {
				return nil, err
			}
			r.Group = filepath.ToSlash(rel)
			if folders == 1 {
				r.Group = strings.TrimSuffix(filepath.Base(f), filepath.Ext(f))
			}
			runs = append(runs, r)
		}
	}
	trimCommonDir(runs)
	return runs, nil
}

// Groups splits runs by Group, in order of first appearance, keeping the
// order of runs within each group.
func Groups(runs []*Run) [][]*Run {
	idx := map[string]int{}
	var out [][]*Run
	for _, r := range runs {
		i, ok := idx[r.Group]
		if !ok {
			i = len(out)
			idx[r.Group] = i
			out = append(out, nil)
		}
		out[i] = append(out[i], r)
	}
	return out
}

// trimCommonDir drops the folders every run name starts with, so runs read
// from /data/loadtests/jan09.bin and /data/loadtests/feb04.bin are called
// jan09.bin and feb04.bin.
func trimCommonDir(runs []*Run) {
	if len(runs) < 2 {
		return
	}
	prefix := filepath.Dir(runs[0].Name) + string(filepath.Separator)
	for {
		all := true
		for _, r := range runs {
			if !strings.HasPrefix(r.Name, prefix) {
				all = false
				break
			}
		}
		if all {
			break
		}
		parent := filepath.Dir(strings.TrimSuffix(prefix, string(filepath.Separator)))
		if parent == "." || parent == string(filepath.Separator) || parent+string(filepath.Separator) == prefix {
			return
		}
		prefix = parent + string(filepath.Separator)
	}
	if prefix == "./" {
		return
	}
	for _, r := range runs {
		r.Name = strings.TrimPrefix(r.Name, prefix)
	}
}

func loadFile(path, name string, basis metrics.Basis, warn func(string)) (*Run, error) {
	src, err := results.Open(path)
	if err != nil {
		return nil, badinput.Wrap(path, err)
	}
	defer src.Close()
	run := NewRun(name, basis)
	n, damage, err := results.ReadAll(src, run, results.KeepBefore)
	if err != nil {
		return nil, badinput.Wrap(path, err)
	}
	if damage != nil {
		warn(fmt.Sprintf("%s: %v; using the %d results before it", path, damage, n))
	}
	return run, nil
}

// findResults lists the results files under dir: loadlab streams and vegeta
// gob files, recognised by their content.
func findResults(dir string) ([]string, error) {
	var out []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return badinput.Wrap(p, err)
		}
		if !d.Type().IsRegular() {
			return nil
		}
		f, err := os.Open(p)
		if err != nil {
			return badinput.Wrap(p, err)
		}
		head := make([]byte, 64<<10)
		n, _ := io.ReadFull(f, head)
		f.Close()
		if n == 0 {
			return nil
		}
		if format, err := results.Detect(head[:n], n < len(head)); err == nil && (format == results.FormatLoadlab || format == results.FormatGob) {
			out = append(out, p)
		}
		return nil
	})
	sort.Strings(out)
	return out, err
}
