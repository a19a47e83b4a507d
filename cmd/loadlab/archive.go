package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/loadlab/loadlab/internal/archive"
	_ "github.com/loadlab/loadlab/internal/archive/sqlstore" // archive.Open's SQLite and Postgres storage
	"github.com/loadlab/loadlab/internal/badinput"
)

func init() {
	register(command{
		name:    "archive",
		summary: "keep every run in one database (SQLite file or Postgres): add, list, trend, serve",
		order:   82,
		run:     runArchive,
	})
}

// archiveCommands are `loadlab archive`'s subcommands. Each lives in its
// own file (archive_add.go, archive_list.go, ...) and registers itself
// from init.
var archiveCommands = registry{}

func runArchive(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		archiveUsage(stderr)
		return badinput.Errorf("want a subcommand (see 'loadlab archive -help')")
	}
	switch args[0] {
	case "-h", "-help", "--help", "help":
		archiveUsage(stdout) // help asked for is the answer: standard output
		return flag.ErrHelp
	}
	c, ok := archiveCommands[args[0]]
	if !ok {
		return badinput.Errorf("unknown subcommand %q (one of %s)", args[0], strings.Join(archiveCommands.names(), ", "))
	}
	err := c.run(ctx, args[1:], stdin, stdout, stderr)
	if errors.Is(err, archive.ErrNotFound) && !badinput.Is(err) {
		err = &badinput.Error{Msg: err.Error()} // an unknown run ID is the user's input
	}
	return err
}

func archiveUsage(w io.Writer) {
	fmt.Fprint(w, `Usage: loadlab archive <subcommand> -db DB [flags]

Keeps every run in one database: DB is a file path (SQLite, created when
missing) or a postgres://user:password@host/db URL (a team's Postgres).

Subcommands:
`)
	for _, c := range archiveCommands.sorted() {
		fmt.Fprintf(w, "  %-7s %s\n", c.name, c.summary)
	}
	fmt.Fprint(w, `
Flags:
  Every subcommand takes -db DB; run 'loadlab archive <subcommand> -help'
  for the others, with more examples.

Examples:
  # Keep a run folder (one run per build when its matrix varies a build),
  # then list the archive, newest first
  loadlab archive add -db runs.db -label commit=abc123 loadlab-run-regression-hunt-20260101-120000
  loadlab archive list -db runs.db

  # Run and archive in one go; a team's Postgres instead of a file
  loadlab run -archive postgres://ci:secret@db.internal/loadlab -label commit=$SHA plan.yaml

'loadlab run -archive DB' and 'loadlab attack -archive DB' add what they make.
The archive is described in docs/archive.md.
`)
}

// labelFlag collects repeatable -label key=value flags.
type labelFlag map[string]string

func (l labelFlag) String() string {
	parts := make([]string, 0, len(l))
	for k, v := range l {
		parts = append(parts, k+"="+v)
	}
	sort.Strings(parts)
	return strings.Join(parts, ",")
}

func (l labelFlag) Set(s string) error {
	k, v, err := archive.ParseLabel(s)
	if err != nil {
		return err
	}
	l[k] = v
	return nil
}

// dbFlag registers the -db flag every archive subcommand takes.
func dbFlag(fs *flag.FlagSet) *string {
	return fs.String("db", "", "the archive: a SQLite file `path`, or a postgres://user:password@host:port/db URL")
}

// needDB refuses a missing -db.
func needDB(db string) error {
	if db == "" {
		return badinput.Field("-db", "required: the archive's SQLite file path or postgres:// URL")
	}
	return nil
}
