package main

import (
	"context"
	"fmt"
	"io"

	"github.com/loadlab/loadlab/internal/archive"
	"github.com/loadlab/loadlab/internal/badinput"
)

func init() {
	archiveCommands.register(command{name: "accept", summary: "accept a run's level as the baseline the CI gate judges newer runs against", order: 35, run: runArchiveAccept})
}

const archiveAcceptExamples = `  # The newest commit is slower on purpose: accept it, so that
  # 'archive trend -fail-on-regression' judges the next commits against it
  loadlab archive accept -db ci.db -note "TLS everywhere: +8% p99 expected" k3x9q2m7fa1c

  # The accepted runs, marked on 'archive trend' and the site's trend chart
  loadlab archive trend -db ci.db -by commit -metric p99`

func runArchiveAccept(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) error {
	fs := newFlagSet("archive accept", "-db DB [-note TEXT] RUN_ID", archiveAcceptExamples, stderr)
	db := dbFlag(fs)
	note := fs.String("note", "", "why the change is accepted (`text`), shown with it")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		return badinput.Errorf("want the run ID to accept")
	}
	id := fs.Arg(0)
	if err := parseFlags(fs, fs.Args()[1:]); err != nil { // flags after the ID
		return err
	}
	if fs.NArg() > 0 {
		return badinput.Errorf("want one run ID, got another argument %q", fs.Arg(0))
	}
	if err := needDB(*db); err != nil {
		return err
	}
	// An existing archive only (refused as a reader refuses it), then
	// opened for writing: readers open read-only, and accepting writes.
	st, err := archive.OpenExisting(ctx, *db)
	if err != nil {
		return err
	}
	st.Close()
	if st, err = archive.Open(ctx, *db); err != nil {
		return err
	}
	defer st.Close()
	acc, ok := st.(archive.Accepter)
	if !ok {
		return fmt.Errorf("the archive %s cannot record acceptances", archive.Redact(*db))
	}
	a, err := acc.Accept(ctx, id, *note)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "accepted run %s as the baseline from %s on\n", a.RunID, a.At.Format("2006-01-02 15:04:05 UTC"))
	return nil
}
