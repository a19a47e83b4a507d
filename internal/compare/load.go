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
	"github.com/loadlab/loadlab/internal/experiment/summary"
	"github.com/loadlab/loadlab/internal/metrics"
	"github.com/loadlab/loadlab/internal/results"
	"github.com/loadlab/loadlab/internal/shardset"
)

// Named is a run given as several results files, read as one run: the
// shard files of one split attack (`loadlab compare -run NAME=FILES`).
type Named struct {
	Name  string
	Paths []string
}

// LoadOptions say how Load reads the runs.
type LoadOptions struct {
	Basis metrics.Basis // what latencies are measured from
	// Force reads shard files of different attacks as one run, where they
	// are otherwise refused (package shardset).
	Force bool
	Warn  func(string) // told about damaged files; may be nil
}

// Load reads the runs named on a command line: the named runs first, each
// one run checked as `loadlab report` checks its files, then the
// arguments'. A results file (loadlab stream, or vegeta gob, CSV or JSON)
// is one run named by its path, except that the shard files of one split
// attack among the files named are one run, named by the pattern that
// matches them (run-7/shard-*-of-3.lll). A folder, such as an
// experiment's output folder, contributes one run per loadlab stream or
// vegeta gob file found in it (recursively, in path order), the shard
// files of one attack again being one run, named by the folder and the
// file's path inside it; a folder with a single run is one run named by the
// folder. Shard files of different attacks among the files named, or in
// one folder, are refused unless o.Force (package shardset).
//
// Runs are compared like with like, so each gets a Group: named runs,
// files named directly and folders holding nothing but the shard files of
// one attack (what `loadlab fleet -out` writes) share the group "". Within
// a single folder the group is the file's name without extension, the
// scenario (steps/01/search.lll and steps/02/search.lll are compared, not
// search with news); in a loadlab run folder whose plan varies a
// component it is the scenario and the step's matrix cell, so each cell's
// variants are compared with each other, not with the first step. With several folders it is the file's path inside its
// folder, so that before/ and after/ are compared step by step; a closed
// loop's (a run folder's step of N users) is its scenario and users, so
// that two sweeps are compared users against users (see closedLoops).
//
// A stream that ends in a torn or corrupt block keeps the results before
// it and o.Warn is told. Unreadable or unrecognised files are
// *badinput.Error.
func Load(named []Named, args []string, o LoadOptions) ([]*Run, error) {
	if o.Warn == nil {
		o.Warn = func(string) {}
	}
	var runs []*Run
	for _, n := range named {
		set, err := shardset.Files(n.Paths, o.Force)
		if err != nil {
			return nil, err
		}
		r, err := loadSet(set, n.Name, o)
		if err != nil {
			return nil, err
		}
		runs = append(runs, r)
	}
	folders := 0
	isDir := make([]bool, len(args))
	var files []string
	for i, arg := range args {
		st, err := os.Stat(arg)
		if err != nil {
			return nil, badinput.Wrap(arg, err)
		}
		if isDir[i] = st.IsDir(); isDir[i] {
			folders++
		} else {
			files = append(files, arg)
		}
	}
	members, err := shardset.Open(files)
	if err != nil {
		return nil, err
	}
	sets, err := shardset.Group(members, o.Force)
	if err != nil {
		return nil, err
	}
	// Group keeps the order of first appearance: walking the files, each
	// file that is not a shard, and the first shard file, starts the next.
	next, shardsSeen := 0, false
	fileIdx := 0
	for i, arg := range args {
		if !isDir[i] {
			m := members[fileIdx]
			fileIdx++
			if m.Shard != nil && shardsSeen {
				continue
			}
			shardsSeen = shardsSeen || m.Shard != nil
			set := sets[next]
			next++
			r, err := loadSet(set, setName(set), o)
			if err != nil {
				return nil, err
			}
			runs = append(runs, r)
			continue
		}
		rs, err := loadFolder(arg, folders, o)
		if err != nil {
			return nil, err
		}
		runs = append(runs, rs...)
	}
	trimCommonDir(runs)
	return runs, nil
}

// loadFolder reads the runs of one folder given on the command line, one
// of folders.
func loadFolder(dir string, folders int, o LoadOptions) ([]*Run, error) {
	files, err := findResults(dir)
	if err != nil {
		return nil, err
	}
	if len(files) == 0 {
		return nil, &badinput.Error{File: dir, Msg: "folder holds no loadlab results stream or vegeta gob file"}
	}
	members, err := shardset.Open(files)
	if err != nil {
		return nil, err
	}
	sets, err := shardset.Group(members, o.Force)
	if err != nil {
		return nil, err
	}
	if len(sets) == 1 && sets[0].Shards() {
		r, err := loadSet(sets[0], filepath.Clean(dir), o)
		return []*Run{r}, err
	}
	var runs []*Run
	var paths []string
	for _, set := range sets {
		rels := set.Names()
		for i, f := range rels {
			rels[i], _ = filepath.Rel(dir, f)
		}
		rel := shardset.Name(rels)
		name := filepath.Clean(dir)
		if len(sets) > 1 {
			name = filepath.Join(name, rel)
		}
		r, err := loadSet(set, name, o)
		if err != nil {
			return nil, err
		}
		r.Group = filepath.ToSlash(rel)
		if folders == 1 {
			base := filepath.Base(rel)
			r.Group = strings.TrimSuffix(base, filepath.Ext(base))
		}
		runs = append(runs, r)
		paths = append(paths, rel)
	}
	sum, err := summary.Load(dir)
	if err != nil {
		sum = nil // not a loadlab run folder, or one it cannot read: grouped by path
	}
	closedLoops(sum, runs, paths, folders > 1)
	if folders == 1 {
		cellGroups(sum, runs, paths)
	}
	return replicates(sum, runs, paths), nil
}

// setName names a run of files named on the command line: its path, or
// the pattern matching its shard files.
func setName(set shardset.Set) string {
	names := set.Names()
	for i, n := range names {
		names[i] = filepath.Clean(n)
	}
	return shardset.Name(names)
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

// loadSet reads the files of set as one run named name.
func loadSet(set shardset.Set, name string, o LoadOptions) (*Run, error) {
	run := NewRun(name, o.Basis)
	run.Files = set.Names()
	for _, path := range run.Files {
		src, err := results.Open(path)
		if err != nil {
			return nil, badinput.Wrap(path, err)
		}
		n, damage, err := results.ReadAll(src, run, results.KeepBefore)
		src.Close()
		if err != nil {
			return nil, badinput.Wrap(path, err)
		}
		if damage != nil {
			o.Warn(fmt.Sprintf("%s: %v; using the %d results before it", path, damage, n))
		}
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
