package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"

	"github.com/loadlab/loadlab/internal/archive"
	"github.com/loadlab/loadlab/internal/archive/ingest"
	"github.com/loadlab/loadlab/internal/badinput"
)

func init() {
	archiveCommands.register(command{name: "add", summary: "add runs: results files, a split attack's shards, run folders, vegeta results", order: 10, run: runArchiveAdd})
}

const archiveAddExamples = `  # A results file, labelled: prints the new run's ID
  loadlab archive add -db runs.db -label build=2020-02-04 results.lll

  # A loadlab run folder: one run per matrix cell when the matrix varies a
  # component (six builds: six runs, labelled build=...)
  loadlab archive add -db runs.db loadlab-run-regression-hunt-20260101-120000

  # The shard files of one split attack are one run; vegeta's files are read too
  loadlab archive add -db runs.db shard-1.lll shard-2.lll
  loadlab archive add -db runs.db -name checkout old/results.bin

  # A team's Postgres
  loadlab archive add -db postgres://ci:secret@db.internal/loadlab -label commit=$SHA run-folder`

func runArchiveAdd(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) error {
	fs := newFlagSet("archive add", "-db DB [-name NAME] [-label key=value]... FILE|RUN_FOLDER...", archiveAddExamples, stderr)
	db := dbFlag(fs)
	name := fs.String("name", "", "the runs' `name` (default: the plan's name, or the results file's)")
	labels := labelFlag{}
	fs.Var(labels, "label", "`key=value` label on every run added (repeatable), e.g. -label build=2020-02-04 -label commit=$SHA")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if err := needDB(*db); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		return badinput.Errorf("nothing to add: give results files or run folders")
	}
	ids, err := archiveAdd(ctx, *db, fs.Args(), ingest.Options{Name: *name, Labels: labels}, stderr)
	for _, id := range ids {
		fmt.Fprintln(stdout, id)
	}
	if err != nil && ctx.Err() != nil {
		// Ctrl-C or SIGTERM: reading and storing stop at their next
		// chunk; a run being stored is rolled back whole.
		msg := "interrupted: nothing was added"
		if len(ids) > 0 {
			msg = fmt.Sprintf("interrupted: the %d runs above were added before it, nothing more", len(ids))
		}
		return exitError{code: 130, msg: msg}
	}
	return err
}

// archiveAdd ingests paths and adds every run to the archive at db,
// returning the new runs' IDs; content already stored is said on stderr.
// Every path is read before anything is written, so a bad one adds
// nothing.
func archiveAdd(ctx context.Context, db string, paths []string, o ingest.Options, stderr io.Writer) ([]string, error) {
	for _, p := range paths { // a mistyped path creates no archive
		if _, err := os.Stat(p); err != nil {
			return nil, badinput.Wrap(p, err)
		}
	}
	st, err := archive.Open(ctx, db)
	if err != nil {
		return nil, err
	}
	defer st.Close()
	bundles, warns, err := ingest.Bundles(ctx, paths, o)
	for _, w := range warns {
		fmt.Fprintf(stderr, "loadlab archive: warning: %s\n", w)
	}
	if err != nil {
		return nil, err
	}
	var ids []string
	for _, b := range bundles {
		id, dup, err := st.Add(ctx, b)
		if err != nil {
			return ids, err
		}
		if dup {
			fmt.Fprintf(stderr, "loadlab archive: %s is already archived as %s%s\n", b.Run.Name, id, labelText(b.Run.Labels))
			continue
		}
		ids = append(ids, id)
	}
	return ids, nil
}

func labelText(l map[string]string) string {
	if len(l) == 0 {
		return ""
	}
	return " (" + labelFlag(l).String() + ")"
}

// archiveFlags are `run` and `attack`'s -archive and -label: add what they
// just made to an archive.
type archiveFlags struct {
	db     string
	labels labelFlag
	// name names the archived run (the attack's -name); "" lets ingest
	// name it from the plan or the results file.
	name string
}

func (a *archiveFlags) register(fs *flag.FlagSet, what string) {
	a.labels = labelFlag{}
	fs.StringVar(&a.db, "archive", "", "add the "+what+" to this archive at the end: a SQLite file `path` or a postgres:// URL (see loadlab archive)")
	fs.Var(a.labels, "label", "with -archive, a `key=value` label on the archived run (repeatable), e.g. -label commit=$SHA")
}

// check opens the archive once before the work starts, so a wrong DSN or
// password stops the command before a long run instead of after it.
func (a *archiveFlags) check(ctx context.Context) error {
	if a.db == "" {
		if len(a.labels) > 0 {
			return badinput.Field("-label", "labels the archived run: give -archive too")
		}
		return nil
	}
	st, err := archive.Open(ctx, a.db)
	if err != nil {
		return err
	}
	return st.Close()
}

// add archives path; a failure keeps path and says how to add it later.
// It returns the error to exit with (code 1 at least when archiving
// failed, the run's own code otherwise).
func (a *archiveFlags) add(ctx context.Context, path string, stdout, stderr io.Writer, runErr error) error {
	if a.db == "" {
		return runErr
	}
	nameArg := ""
	if a.name != "" {
		nameArg = " -name " + shellQuote(a.name)
	}
	later := fmt.Sprintf("add it later with: loadlab archive add -db %s%s%s %s", shellQuote(archive.Redact(a.db)), nameArg, labelArgs(a.labels), shellQuote(path))
	// An interrupted attack or run is still archived (Ctrl-C is how an
	// open-ended attack ends): the add is bounded work, in one transaction.
	ids, err := archiveAdd(context.WithoutCancel(ctx), a.db, []string{path}, ingest.Options{Name: a.name, Labels: a.labels}, stderr)
	for _, id := range ids {
		fmt.Fprintf(stdout, "archived: %s\n", id)
	}
	if err == nil {
		return runErr
	}
	msg := fmt.Sprintf("archiving failed (%v); %s is kept: %s", err, path, later)
	code := 1
	var ec exitError
	if runErr != nil && asExit(runErr, &ec) && ec.code != 0 {
		code = ec.code
		msg = ec.msg + "; " + msg
	}
	return exitError{code: code, msg: msg}
}

func asExit(err error, ec *exitError) bool {
	e, ok := err.(exitError)
	if ok {
		*ec = e
	}
	return ok
}

func labelArgs(l labelFlag) string {
	keys := make([]string, 0, len(l))
	for k := range l {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	for _, k := range keys {
		b.WriteString(" -label " + shellQuote(k+"="+l[k]))
	}
	return b.String()
}

// shellQuote quotes s for a shell when it needs it.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./=:@+,") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
