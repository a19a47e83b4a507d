package ingest

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/loadlab/loadlab/internal/archive"
	"github.com/loadlab/loadlab/internal/badinput"
	"github.com/loadlab/loadlab/internal/redact"
	"github.com/loadlab/loadlab/internal/results"
	"github.com/loadlab/loadlab/internal/runblock"
	"github.com/loadlab/loadlab/internal/shardset"
)

// Options are what the user adds to every run.
type Options struct {
	Name   string            // the runs' name (default: the plan's name, or the results file's)
	Labels map[string]string // added to every run (over labels found in the files)
}

// Bundles turns paths into the runs they hold, in the order given: each
// folder is a `loadlab run` folder (one run, or one per matrix cell);
// results files are grouped as `loadlab plot` groups them, the shard files
// of one split attack one run and every other file a run of its own.
// Each run comes with its identity (archive.Bundle.Identify), given here
// once: a store persists it. Warnings (a torn tail a killed attack left)
// are returned for the caller to print; a file that is not results, or is
// corrupt, is bad input.
func Bundles(ctx context.Context, paths []string, o Options) ([]*archive.Bundle, []string, error) {
	var out []*archive.Bundle
	var warns []string
	var files []string
	flush := func() error {
		if len(files) == 0 {
			return nil
		}
		bs, ws, err := resultsRuns(ctx, files, o)
		files = nil
		out, warns = append(out, bs...), append(warns, ws...)
		return err
	}
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			return nil, warns, badinput.Wrap(p, err)
		}
		if !st.IsDir() {
			if _, err := argFile(p); err != nil { // not a FIFO, device, socket
				return nil, warns, err
			}
			files = append(files, p)
			continue
		}
		if err := flush(); err != nil {
			return nil, warns, err
		}
		bs, ws, err := runFolder(ctx, p, o)
		out, warns = append(out, bs...), append(warns, ws...)
		if err != nil {
			return nil, warns, err
		}
	}
	if err := flush(); err != nil {
		return nil, warns, err
	}
	for _, b := range out { // each run's identity is given here, once
		if err := b.Identify(); err != nil {
			return nil, warns, err
		}
	}
	return out, warns, nil
}

// resultsRuns groups results files into runs and ingests each.
func resultsRuns(ctx context.Context, files []string, o Options) ([]*archive.Bundle, []string, error) {
	members, err := openMembers(ctx, files)
	if err != nil {
		return nil, nil, err
	}
	sets, err := shardset.Group(members, false)
	if err != nil {
		return nil, nil, err
	}
	var out []*archive.Bundle
	var warns []string
	for _, set := range sets {
		if err := ctx.Err(); err != nil {
			return nil, warns, err
		}
		b, ws, err := resultsRun(ctx, set.Names(), o)
		warns = append(warns, ws...)
		if err != nil {
			return nil, warns, err
		}
		out = append(out, b)
	}
	return out, warns, nil
}

// resultsRun is one run from results files (one file, or one attack's
// shards): one step, its figures as `loadlab report FILES` prints them.
func resultsRun(ctx context.Context, paths []string, o Options) (*archive.Bundle, []string, error) {
	used := map[string]bool{}
	var files []archive.BundleFile
	var refs []diskRef
	for _, p := range paths {
		ref, err := argFile(p)
		if err != nil {
			return nil, nil, err
		}
		refs = append(refs, ref)
		n := filepath.Base(p)
		for i := 2; used[n]; i++ {
			n = fmt.Sprintf("%d-%s", i, filepath.Base(p))
		}
		used[n] = true
		files = append(files, diskFile(ctx, n, ref))
	}
	// the content hash reads the files while the report does (a second
	// core, and the page cache serves both)
	type hashed struct {
		sum string
		err error
	}
	hash := make(chan hashed, 1)
	go func() {
		sum, err := archive.ContentHash(files, "")
		hash <- hashed{sum, err}
	}()
	rep, err := reportFiles(ctx, refs)
	h := <-hash
	if err != nil {
		return nil, rep.warnings, err
	}
	if h.err != nil {
		return nil, rep.warnings, h.err
	}
	name := o.Name
	if name == "" {
		name = strings.TrimSuffix(filepath.Base(shardset.Name(paths)), filepath.Ext(shardset.Name(paths)))
	}
	labels := map[string]string{}
	source := "results"
	var command []string
	users, closed := 0, len(rep.metas) > 0
	for _, m := range rep.metas {
		if m == nil {
			closed = false
			continue
		}
		if n, _ := m.Load.Bounds(); n > 0 { // a broken header's negative count is none
			users += n
		} else {
			closed = false
		}
		if m.Shard != nil {
			source = "shards"
		}
		if command == nil {
			command = m.Command
		}
		for k, v := range m.Labels {
			if _, _, err := archive.ParseLabel(k + "=" + v); err == nil {
				labels[k] = v
			}
		}
	}
	if rep.vegeta {
		source = "vegeta"
	}
	for k, v := range o.Labels {
		labels[k] = v
	}
	f := figures(rep.m)
	health := rep.health
	if rep.machine != nil { // the attack measured the machine (its stream's trailer)
		health = health.WithMachine(*rep.machine)
	}
	b := &archive.Bundle{
		Run: archive.Run{Name: name, Labels: labels, Source: source, Command: strings.Join(redact.Args(command), " "),
			Started: rep.m.Earliest, Ended: rep.m.End, Figures: f, Health: health,
			Steps: []archive.Step{{Index: 0, Name: name, Started: rep.m.Earliest, Ended: rep.m.End, Figures: f, Text: rep.text, Health: health}}},
		Histograms:     map[archive.StepKey][]byte{{Step: 0}: rep.hist},
		Scenarios:      map[string]archive.Figures{"": f},
		ScenarioHealth: map[string]runblock.Health{"": health},
		Blocks:         map[archive.StepKey][]runblock.Block{{Step: 0}: rep.blocks},
	}
	if closed {
		// A closed loop (attack -rate=0 -max-workers N, each shard with
		// its share): its load is its users, its rate what they achieved.
		b.Run.Users = []int{users}
	}
	b.Files, b.Run.Content = files, h.sum
	return b, rep.warnings, nil
}

// diskFile is a file stored as it is on disk: opened and read as
// diskRef.open does, the first ref.size bytes, stopping when ctx ends.
func diskFile(ctx context.Context, name string, ref diskRef) archive.BundleFile {
	return archive.BundleFile{Name: name, Open: func() (io.ReadCloser, error) { return ref.open(ctx) }}
}

// openMembers reads the header of every results file named on the
// command line (as shardset.Open, through diskRef: never waiting on a
// FIFO): a split attack's shard files carry their shard record.
func openMembers(ctx context.Context, paths []string) ([]shardset.Member, error) {
	out := make([]shardset.Member, 0, len(paths))
	for _, p := range paths {
		ref, err := argFile(p)
		if err != nil {
			return nil, err
		}
		rc, err := ref.open(ctx)
		if err != nil {
			return nil, err
		}
		src, err := results.OpenReader(rc, p)
		if err != nil {
			rc.Close()
			return nil, err
		}
		m := shardset.Member{Name: p}
		if src.Meta != nil {
			m.Shard = src.Meta.Shard
		}
		src.Close()
		rc.Close()
		out = append(out, m)
	}
	return out, nil
}

// sortedKeys returns m's keys in order.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
