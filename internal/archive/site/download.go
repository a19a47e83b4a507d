package site

import (
	"archive/tar"
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"path"
	"strconv"
	"strings"

	"github.com/loadlab/loadlab/internal/archive"
	"github.com/loadlab/loadlab/internal/badinput"
	"github.com/loadlab/loadlab/internal/experiment/summary"
	"github.com/loadlab/loadlab/internal/results"
)

// tarball streams every stored file of a run as a tar, in a folder named
// after the run's slug.
func (h *Handler) tarball(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	run, _, err := h.lookup(ctx, r.PathValue("id"))
	if err != nil {
		failure(w, err)
		return
	}
	files, err := h.store.Files(ctx, run.ID)
	if err != nil {
		failure(w, err)
		return
	}
	dir := run.Slug
	if dir == "" {
		dir = run.ID
	}
	w.Header().Set("Content-Type", "application/x-tar")
	w.Header().Set("Content-Disposition", `attachment; filename="`+dir+`.tar"`)
	if r.Method == http.MethodHead {
		return
	}
	bw := bufio.NewWriterSize(w, 64<<10)
	tw := tar.NewWriter(bw)
	for _, f := range files {
		// Once the answer has begun, a failure can only cut it short: the
		// tar then lacks its end and tar says it is truncated.
		if err := h.tarFile(ctx, tw, run, dir, f); err != nil {
			return
		}
	}
	if tw.Close() == nil {
		_ = bw.Flush()
	}
}

func (h *Handler) tarFile(ctx context.Context, tw *tar.Writer, run *archive.Run, dir string, f archive.File) error {
	rc, err := h.store.OpenFile(ctx, run.ID, f.Name)
	if err != nil {
		return err
	}
	defer rc.Close()
	mod := run.Ended
	if mod.IsZero() {
		mod = run.Added
	}
	if err := tw.WriteHeader(&tar.Header{Name: path.Join(tarName(dir), tarName(f.Name)), Mode: 0o644, Size: f.Size, ModTime: mod, Typeflag: tar.TypeReg}); err != nil {
		return err
	}
	n, err := io.Copy(tw, rc)
	if err == nil && n != f.Size {
		err = fmt.Errorf("%s: %d bytes stored, %d listed", f.Name, n, f.Size)
	}
	return err
}

// nonResults are stored files that are never results streams.
var nonResults = map[string]bool{summary.File: true, "samples.json": true, "samples.csv": true, "report.md": true, "report.html": true}

// isResultsName says whether a stored file may hold results: a loadlab
// stream, or vegeta's gob, CSV or JSON.
func isResultsName(name string) bool {
	base := path.Base(name)
	if nonResults[base] || strings.HasPrefix(base, "plan.") || strings.HasPrefix(name, "charts/") {
		return false
	}
	switch path.Ext(base) {
	case ".lll", ".bin", ".gob", ".csv", ".json", ".jsonl":
		return true
	}
	return false
}

// hasResults says whether the run's stored files include results.
func (h *Handler) hasResults(files []archive.File) bool {
	for _, f := range files {
		if isResultsName(f.Name) {
			return true
		}
	}
	return false
}

// resultsFiles names the stored files holding one step's results: the
// scenario's stream named in summary.json for a run folder, else every
// stored file (a run added from results files, or the shard files of one
// attack, stores only them, as one step).
func (h *Handler) resultsFiles(ctx context.Context, run *archive.Run, st archive.Step, files []archive.File) ([]string, error) {
	var sum summary.Summary
	ok, err := h.readJSONFile(ctx, run.ID, summary.File, files, &sum)
	if err != nil {
		return nil, err
	}
	stored := map[string]bool{}
	for _, f := range files {
		stored[f.Name] = true
	}
	if ok {
		for _, s := range sum.Steps {
			if s.Index != st.Index {
				continue
			}
			for _, sc := range s.Scenarios {
				if sc.Name == st.Scenario && stored[sc.Results] {
					return []string{sc.Results}, nil
				}
			}
		}
		return nil, fmt.Errorf("no results stored for step %d scenario %q of run %s: %w", st.Index+1, st.Scenario, run.ID, archive.ErrNotFound)
	}
	var out []string
	for _, f := range files {
		out = append(out, f.Name)
	}
	if len(out) == 0 || len(run.Steps) > 1 {
		return nil, fmt.Errorf("no results stored for step %d scenario %q of run %s: %w", st.Index+1, st.Scenario, run.ID, archive.ErrNotFound)
	}
	return out, nil
}

// resultsBin streams one step's results as vegeta's gob (`vegeta attack`'s
// output), read from the stored results files.
func (h *Handler) resultsBin(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	run, _, err := h.lookup(ctx, r.PathValue("id"))
	if err != nil {
		failure(w, err)
		return
	}
	q := r.URL.Query()
	st, err := findStep(run, q.Get("step"), q.Get("scenario"))
	if err != nil {
		failure(w, err)
		return
	}
	files, err := h.store.Files(ctx, run.ID)
	if err != nil {
		failure(w, err)
		return
	}
	names, err := h.resultsFiles(ctx, run, st, files)
	if err != nil {
		failure(w, err)
		return
	}
	base := run.Slug
	if base == "" {
		base = run.ID
	}
	if len(run.Steps) > 1 {
		base += fmt.Sprintf("-step%d-%s", st.Index+1, anchorSafe(st.Scenario))
	}
	w.Header().Set("Content-Type", "application/octet-stream")
	w.Header().Set("Content-Disposition", `attachment; filename="`+base+`.bin"`)
	if r.Method == http.MethodHead {
		return
	}
	bw := bufio.NewWriterSize(w, 64<<10)
	enc := results.NewGobEncoder(bw)
	for _, name := range names {
		if err := h.encodeFile(ctx, enc, run.ID, name); err != nil {
			return // cut short: vegeta reads what came and says the rest is missing
		}
	}
	_ = bw.Flush()
}

func (h *Handler) encodeFile(ctx context.Context, enc *results.GobEncoder, id, name string) error {
	rc, err := h.store.OpenFile(ctx, id, name)
	if err != nil {
		return err
	}
	defer rc.Close()
	src, err := results.OpenReader(rc, name)
	if err != nil {
		return err
	}
	defer src.Close()
	var res results.Result
	for {
		err := src.Decode(&res)
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		if err := enc.Encode(&res); err != nil {
			return err
		}
	}
}

// findStep picks a step by index (0-based, as stored; "" for a run of one
// step) and scenario ("" when the step has one).
func findStep(run *archive.Run, step, scenario string) (archive.Step, error) {
	idx := -1
	if step != "" {
		n, err := strconv.Atoi(step)
		if err != nil || n < 0 {
			return archive.Step{}, badinput.Field("step", "want a step number from 0, got %q", step)
		}
		idx = n
	}
	var match []archive.Step
	for _, st := range run.Steps {
		if (idx < 0 || st.Index == idx) && (scenario == "" || st.Scenario == scenario) {
			match = append(match, st)
		}
	}
	switch {
	case len(match) == 1:
		return match[0], nil
	case len(match) == 0:
		return archive.Step{}, fmt.Errorf("run %s has no step %s scenario %q: %w", run.ID, step, scenario, archive.ErrNotFound)
	}
	return archive.Step{}, badinput.Errorf("run %s has %d steps and scenarios: name one with step=N&scenario=NAME", run.ID, len(match))
}

// tarName is a stored name as a tar entry's: relative, never climbing out
// of the run's folder (no .., no leading /, backslashes taken as
// separators), and without control characters (each becomes _), so that
// no tar extracts it elsewhere or prints it as terminal commands.
func tarName(name string) string {
	name = strings.Map(func(r rune) rune {
		switch {
		case r == '\\':
			return '/'
		case r < 0x20 || r == 0x7f || r >= 0x80 && r < 0xa0:
			return '_'
		}
		return r
	}, name)
	var parts []string
	for _, p := range strings.Split(name, "/") {
		if p == "" || p == "." || p == ".." {
			continue
		}
		parts = append(parts, p)
	}
	if len(parts) == 0 {
		return "_"
	}
	return strings.Join(parts, "/")
}
