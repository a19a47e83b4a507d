package ingest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/loadlab/loadlab/internal/archive"
	"github.com/loadlab/loadlab/internal/badinput"
	"github.com/loadlab/loadlab/internal/experiment/plan"
	"github.com/loadlab/loadlab/internal/experiment/summary"
	"github.com/loadlab/loadlab/internal/metrics"
	"github.com/loadlab/loadlab/internal/redact"
	"github.com/loadlab/loadlab/internal/runblock"
)

// StepLog is the name of the file, made from summary.json, listing the
// instant each step started and ended.
const StepLog = "steps.log"

// topFiles are a run folder's own files stored with every run made of it.
var topFiles = []string{"plan.yaml", summary.File, "report.md", "report.html"}

// cell is one matrix cell of a run folder: the steps that ran one
// combination of component variants.
type cell struct {
	key    string            // "build=2020-02-04", "" for the whole run
	labels map[string]string // the component variants
	steps  []*summary.StepResult
}

// runFolder ingests a `loadlab run` folder. Every file is read through
// the folder's root (confine.go): nothing outside the folder is read.
// The folder stays open while its bundles' files are read.
func runFolder(ctx context.Context, dir string, o Options) ([]*archive.Bundle, []string, error) {
	f, err := openFolder(dir)
	if err != nil {
		return nil, nil, err
	}
	ref, err := f.stat(summary.File)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, badinput.At(dir, 0, "not a loadlab run folder (no %s), nor a results file", summary.File)
	}
	if err != nil {
		return nil, nil, err
	}
	data, err := ref.readAll(ctx, MaxParsedBytes)
	if err != nil {
		return nil, nil, err
	}
	// An old summary's missing users come from the folder's plan copy,
	// read as every file here is (summary.Parse, planCopy).
	sum, err := summary.Parse(data, func(name string) ([]byte, error) {
		if name = copyIn(f, name); name == "" {
			return nil, fs.ErrNotExist
		}
		ref, err := f.stat(name)
		if err != nil {
			return nil, err
		}
		return ref.readAll(ctx, MaxPlanBytes)
	})
	if err != nil {
		return nil, nil, badinput.Wrap(ref.path, err)
	}
	if len(sum.Steps) == 0 {
		return nil, nil, badinput.At(dir, 0, "the run has no steps: nothing to archive")
	}
	cells := cellsOf(sum)
	var plan []byte
	if name := planCopy(f, sum); name != "" {
		ref, err := f.stat(name)
		if err != nil {
			return nil, nil, err
		}
		if plan, err = ref.readAll(ctx, MaxPlanBytes); err != nil {
			return nil, nil, err
		}
	}
	machine, _ := json.Marshal(sum.Machine)
	var out []*archive.Bundle
	var warns []string
	for _, c := range cells {
		if err := ctx.Err(); err != nil {
			return nil, warns, err
		}
		b, ws, err := cellRun(ctx, f, sum, c, o)
		warns = append(warns, ws...)
		if err != nil {
			return nil, warns, err
		}
		b.Run.Plan, b.Run.Machine = string(plan), string(machine)
		out = append(out, b)
	}
	return out, warns, nil
}

// cellsOf splits the steps by the values of the matrix's component axes:
// one cell per combination, in first-run order; one cell of every step
// when no component varies.
func cellsOf(sum *summary.Summary) []cell {
	var comp []string
	for _, ax := range sum.Axes() {
		if ax.Component && len(ax.Values) > 1 {
			comp = append(comp, ax.Key)
		}
	}
	// A plan run with repeat: N: each replicate of a cell is a run of its
	// own, labelled repeat=k, so a trend sees the replicates.
	for _, st := range sum.Steps {
		if st.Vars[plan.RepeatVar] != "" {
			comp = append(comp, plan.RepeatVar)
			break
		}
	}
	if len(comp) == 0 {
		return []cell{{steps: sum.Steps}}
	}
	var cells []cell
	at := map[string]int{}
	for _, st := range sum.Steps {
		labels := map[string]string{}
		var parts []string
		for _, k := range comp {
			v := st.Variants[k]
			if v == "" {
				v = st.Vars[k]
			}
			labels[k] = v
			parts = append(parts, k+"="+v)
		}
		key := strings.Join(parts, ",")
		i, ok := at[key]
		if !ok {
			i = len(cells)
			at[key] = i
			cells = append(cells, cell{key: key, labels: labels})
		}
		cells[i].steps = append(cells[i].steps, st)
	}
	return cells
}

// stepJob is one scenario of one step to report.
type stepJob struct {
	step *summary.StepResult
	sc   *summary.ScenarioResult
	ref  diskRef // its results file
	rep  fileReport
	err  error
}

// cellRun is the run of one cell: a step per step and scenario, each
// reported from its results file; the run's figures are every file's
// merged, as `loadlab report` of them all prints them.
func cellRun(ctx context.Context, f *folder, sum *summary.Summary, c cell, o Options) (*archive.Bundle, []string, error) {
	var jobs []*stepJob
	for _, st := range c.steps {
		for j, sc := range st.Scenarios {
			if sc.Results == "" {
				continue
			}
			if err := f.checkName(fmt.Sprintf("steps[%d].scenarios[%d].results", st.Index, j), sc.Results); err != nil {
				return nil, nil, err
			}
			ref, err := f.stat(sc.Results)
			if errors.Is(err, fs.ErrNotExist) {
				continue // a step that never started its attack
			}
			if err != nil {
				return nil, nil, err
			}
			jobs = append(jobs, &stepJob{step: st, sc: sc, ref: ref})
		}
	}
	if len(jobs) == 0 {
		return nil, nil, badinput.At(f.dir, 0, "no results files of its steps are in the folder: nothing to archive")
	}
	reportAll(ctx, jobs)
	var warns []string
	var all []*metrics.Metrics
	perScenario := map[string][]*metrics.Metrics{}
	b := &archive.Bundle{Histograms: map[archive.StepKey][]byte{}, Scenarios: map[string]archive.Figures{},
		ScenarioHealth: map[string]runblock.Health{}, Blocks: map[archive.StepKey][]runblock.Block{}}
	var healths []runblock.Health
	var walls []time.Duration
	scHealth := map[string][]runblock.Health{}
	scWalls := map[string][]time.Duration{}
	for _, j := range jobs {
		warns = append(warns, j.rep.warnings...)
		if j.err != nil {
			return nil, warns, j.err
		}
		all = append(all, j.rep.m)
		perScenario[j.sc.Name] = append(perScenario[j.sc.Name], j.rep.m)
		h := stepHealth(j)
		wall := j.step.Ended.Sub(j.step.Started)
		healths, walls = append(healths, h), append(walls, wall)
		scHealth[j.sc.Name], scWalls[j.sc.Name] = append(scHealth[j.sc.Name], h), append(scWalls[j.sc.Name], wall)
		b.Run.Steps = append(b.Run.Steps, archive.Step{Index: j.step.Index, Name: j.step.Name, Scenario: j.sc.Name,
			Started: j.step.Started, Ended: j.step.Ended, Figures: figures(j.rep.m), Text: j.rep.text, Health: h})
		key := archive.StepKey{Step: j.step.Index, Scenario: j.sc.Name}
		b.Histograms[key], b.Blocks[key] = j.rep.hist, j.rep.blocks
	}
	for name, ms := range perScenario {
		b.Scenarios[name] = figures(merged(ms))
		b.ScenarioHealth[name] = runblock.Combine(scHealth[name], scWalls[name])
	}
	b.Run.Health = runblock.Combine(healths, walls)
	labels := map[string]string{}
	for k, v := range c.labels {
		labels[k] = v
	}
	for k, v := range o.Labels {
		labels[k] = v
	}
	name := o.Name
	if name == "" {
		name = sum.Name
	}
	first, last := c.steps[0], c.steps[len(c.steps)-1]
	b.Run.Name, b.Run.Labels, b.Run.Source = name, labels, "run"
	b.Run.Command = strings.TrimSpace("loadlab run " + strings.Join(redact.Args(sum.RunArgs), " "))
	b.Run.Started, b.Run.Ended = first.Started, last.Ended
	b.Run.Figures = figures(merged(all))
	files, hashed, ws, err := cellFiles(ctx, f, sum, c)
	warns = append(warns, ws...)
	if err != nil {
		return nil, warns, err
	}
	b.Files = files
	content, err := archive.ContentHash(hashed, c.key)
	if err != nil {
		return nil, warns, err
	}
	b.Run.Content = content
	b.Run.Users = closedUsers(jobs)
	return b, warns, nil
}

// stepHealth is a step's scenario's health: the lag part from its
// results, the machine's part from summary.json, or its results stream's
// trailer (Unknown in a folder written before loadlab measured it).
func stepHealth(j *stepJob) runblock.Health {
	h := j.rep.health
	switch {
	case j.sc.Health != nil:
		h = h.WithMachine(*j.sc.Health)
	case j.rep.machine != nil:
		h = h.WithMachine(*j.rep.machine)
	}
	return h
}

// closedUsers are the users of each step's scenarios when every one ran
// as a closed loop, nil when one was paced: the slug names a closed loop
// by its users, whose rate is what they achieved, not what was asked.
func closedUsers(jobs []*stepJob) []int {
	var users []int
	for _, j := range jobs {
		if !j.sc.Closed() {
			return nil
		}
		users = append(users, j.sc.Users)
	}
	return users
}

// reportAll reports every job's results file, on every core.
func reportAll(ctx context.Context, jobs []*stepJob) {
	next := make(chan *stepJob)
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(jobs)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range next {
				j.rep, j.err = reportFiles(ctx, []diskRef{j.ref})
			}
		}()
	}
	for _, j := range jobs {
		next <- j
	}
	close(next)
	wg.Wait()
}

// cellFiles are the raw files of a cell's run: the run folder's own files,
// every file of its steps' folders, its components' logs, the sampled
// metrics of its steps, the step log, and what else the write-up reads
// (componentFiles: the components' rendered configs and recipe copies; a
// plan copy named plan.yml or plan.json), so that the run's folder, fetched
// back from the archive, rewrites to the same report.
//
// hashed are the files the run's content hash is taken over: those a
// loadlab that stored no configs, recipes nor plan.yml/json stored, so that
// adding a folder an older loadlab archived finds it already stored.
//
// Names from summary.json that are absolute or climb out with `..`, and
// files that are links leading out of the folder, FIFOs, devices or
// sockets, are refused; inside the folders walked (a step's folder,
// components/), such entries are skipped with a warning.
func cellFiles(ctx context.Context, f *folder, sum *summary.Summary, c cell) (files, hashed []archive.BundleFile, warns []string, err error) {
	seen := map[string]bool{}
	add := func(field, rel string, inHash bool) error {
		if err := f.checkName(field, rel); err != nil {
			return err
		}
		rel = filepath.ToSlash(filepath.Clean(filepath.FromSlash(rel)))
		if seen[rel] {
			return nil
		}
		ref, err := f.stat(rel)
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil {
			return err
		}
		seen[rel] = true
		file := diskFile(ctx, rel, ref)
		files = append(files, file)
		if inHash {
			hashed = append(hashed, file)
		}
		return nil
	}
	walk := func(field, sub string, inHash bool) error {
		names, ws, err := f.walk(field, sub)
		warns = append(warns, ws...)
		if err != nil {
			return err
		}
		for _, n := range names {
			if err := add(field, n, inHash); err != nil {
				return err
			}
		}
		return nil
	}
	for _, name := range topFiles {
		if err := add(name, name, true); err != nil {
			return nil, nil, warns, err
		}
	}
	steps := map[int]bool{}
	for _, st := range c.steps {
		steps[st.Index+1] = true
		if st.Dir != "" {
			if err := walk(fmt.Sprintf("steps[%d].dir", st.Index), st.Dir, true); err != nil {
				return nil, nil, warns, err
			}
		}
		for j, sc := range st.Scenarios {
			if sc.Results != "" {
				if err := add(fmt.Sprintf("steps[%d].scenarios[%d].results", st.Index, j), sc.Results, true); err != nil {
					return nil, nil, warns, err
				}
			}
			if sc.Report != "" {
				if err := add(fmt.Sprintf("steps[%d].scenarios[%d].report", st.Index, j), sc.Report, true); err != nil {
					return nil, nil, warns, err
				}
			}
		}
		for _, cr := range append(append([]summary.ComponentRun{}, st.Components...), st.Deaths...) {
			if cr.Log != "" {
				if err := add(fmt.Sprintf("steps[%d].components[%s].log", st.Index, cr.Name), cr.Log, true); err != nil {
					return nil, nil, warns, err
				}
			}
		}
	}
	if name := planCopy(f, sum); name != "" {
		if err := add(name, name, false); err != nil {
			return nil, nil, warns, err
		}
	}
	if len(c.steps) == len(sum.Steps) {
		if err := walk("components", "components", false); err != nil {
			return nil, nil, warns, err
		}
	} else {
		for _, n := range componentFiles(sum, c) {
			if err := add("components", n, false); err != nil {
				return nil, nil, warns, err
			}
		}
	}
	whole := len(c.steps) == len(sum.Steps)
	for _, name := range []string{"samples.json", "samples.csv"} {
		ref, err := f.stat(name)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, nil, warns, err
		}
		seen[name] = true
		if whole {
			files = append(files, diskFile(ctx, name, ref))
			hashed = append(hashed, files[len(files)-1])
			continue
		}
		filter := samplesJSON
		if strings.HasSuffix(name, ".csv") {
			filter = samplesCSV
		}
		if ref.size > MaxParsedBytes {
			return nil, nil, warns, badinput.At(ref.path, 0, "is %d bytes, more than the %d MiB archive add reads of it to keep one matrix cell's samples", ref.size, MaxParsedBytes>>20)
		}
		files = append(files, archive.BundleFile{Name: name, Open: func() (io.ReadCloser, error) {
			data, err := ref.readAll(ctx, MaxParsedBytes)
			if err != nil {
				return nil, err
			}
			out, err := filter(data, steps)
			if err != nil {
				return nil, badinput.Wrap(ref.path, err)
			}
			return io.NopCloser(bytes.NewReader(out)), nil
		}})
		hashed = append(hashed, files[len(files)-1])
	}
	log := stepLog(sum, c)
	files = append(files, archive.BundleFile{Name: StepLog, Open: func() (io.ReadCloser, error) {
		return io.NopCloser(strings.NewReader(log)), nil
	}})
	hashed = append(hashed, files[len(files)-1])
	return files, hashed, warns, nil
}

// stepLog lists when each of the cell's steps started and ended, one line
// each, as the terminal showed them.
func stepLog(sum *summary.Summary, c cell) string {
	var b strings.Builder
	for _, st := range c.steps {
		fmt.Fprintf(&b, "%s step %d/%d started: %s\n", st.Started.UTC().Format("2006-01-02T15:04:05.000000000Z"), st.Index+1, len(sum.Steps), st.Name)
		for _, sc := range st.Scenarios {
			fmt.Fprintf(&b, "%s   %s: %s for %s, %d requests\n", st.Started.UTC().Format("2006-01-02T15:04:05.000000000Z"), sc.Name, sc.Load(), sc.Duration, sc.Requests)
		}
		fmt.Fprintf(&b, "%s step %d/%d ended\n", st.Ended.UTC().Format("2006-01-02T15:04:05.000000000Z"), st.Index+1, len(sum.Steps))
	}
	return b.String()
}

// samplesJSON keeps the samples of the given steps (1-based).
func samplesJSON(data []byte, steps map[int]bool) ([]byte, error) {
	var all []json.RawMessage
	if err := json.Unmarshal(data, &all); err != nil {
		return nil, err
	}
	kept := []json.RawMessage{}
	for _, raw := range all {
		var s struct {
			Step int `json:"step"`
		}
		if json.Unmarshal(raw, &s) == nil && steps[s.Step] {
			kept = append(kept, raw)
		}
	}
	return json.Marshal(kept)
}

// samplesCSV keeps the header and the rows of the given steps (1-based),
// whose second column is the step.
func samplesCSV(data []byte, steps map[int]bool) ([]byte, error) {
	var out bytes.Buffer
	for i, line := range bytes.SplitAfter(data, []byte("\n")) {
		if len(line) == 0 {
			continue
		}
		if i == 0 {
			out.Write(line)
			continue
		}
		fields := bytes.SplitN(line, []byte(","), 3)
		var n int
		if len(fields) >= 2 {
			fmt.Sscan(string(fields[1]), &n)
		}
		if steps[n] {
			out.Write(line)
		}
	}
	return out.Bytes(), nil
}
