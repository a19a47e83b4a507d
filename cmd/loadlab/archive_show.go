package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"time"

	"github.com/loadlab/loadlab/internal/archive"
	"github.com/loadlab/loadlab/internal/badinput"
	"github.com/loadlab/loadlab/internal/runblock"
	"github.com/loadlab/loadlab/internal/termsafe"
)

func init() {
	archiveCommands.register(command{name: "show", summary: "one run: its figures, each step's text report, its stored files", order: 30, run: runArchiveShow})
}

const archiveShowExamples = `  # A run's steps with their vegeta-style text reports, and its files
  loadlab archive show -db runs.db k3x9q2m7fa1c

  # The same as JSON (the run, its steps and files)
  loadlab archive show -db runs.db -type json k3x9q2m7fa1c`

func runArchiveShow(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) error {
	stdout = termsafe.Writer(stdout) // names, labels and reports come from files: no terminal commands
	fs := newFlagSet("archive show", "-db DB [-type json] RUN_ID", archiveShowExamples, stderr)
	db := dbFlag(fs)
	typ := fs.String("type", "text", "output `type`: text or json")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if err := needDB(*db); err != nil {
		return err
	}
	if *typ != "text" && *typ != "json" {
		return badinput.Field("-type", "want text or json, got %q", *typ)
	}
	if fs.NArg() != 1 {
		return badinput.Errorf("want one run ID, got %d arguments", fs.NArg())
	}
	st, err := archive.OpenExisting(ctx, *db)
	if err != nil {
		return err
	}
	defer st.Close()
	r, err := st.Get(ctx, fs.Arg(0))
	if err != nil {
		return err
	}
	files, err := st.Files(ctx, r.ID)
	if err != nil {
		return err
	}
	if *typ == "json" {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(archive.RunDetail{Run: r, Files: files})
	}
	fmt.Fprintf(stdout, "%s  %s\n", r.Slug, labelList(r.Labels))
	fmt.Fprintf(stdout, "%s, %s to %s (%s)\n", r.Command, r.Started.Local().Format(time.DateTime), r.Ended.Local().Format(time.TimeOnly), r.Source)
	fmt.Fprintf(stdout, "machine: %s\n", healthLine(r.Health))
	for _, s := range r.Steps {
		name := s.Name
		if s.Scenario != "" {
			name += ", " + s.Scenario
		}
		fmt.Fprintf(stdout, "\n== step %d: %s\n%s", s.Index+1, name, s.Text)
		if len(r.Steps) > 1 && s.Health.Known() {
			fmt.Fprintf(stdout, "machine: %s\n", healthLine(s.Health))
		}
	}
	fmt.Fprintln(stdout, "\nFiles:")
	for _, f := range files {
		fmt.Fprintf(stdout, "  %10d  %s\n", f.Size, f.Name)
	}
	return nil
}

// healthLine is what the machine did to a run, for a line starting
// "machine: ".
func healthLine(h runblock.Health) string {
	if l := h.Line(); l != "" {
		return l
	}
	return "not measured (archived before loadlab kept it)"
}
