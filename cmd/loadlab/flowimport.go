package main

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/loadlab/loadlab/internal/badinput"
	"github.com/loadlab/loadlab/internal/flow/har"
)

// The flow command's subcommands: import (a HAR recording into a flow).
func init() {
	register(command{
		name:    "flow",
		summary: "make flows (multi-request user journeys): 'flow import recording.har > flow.yaml'",
		order:   15,
		run:     runFlow,
	})
}

func runFlow(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		return badinput.Errorf("want a subcommand: import (loadlab flow import recording.har > flow.yaml)")
	}
	switch args[0] {
	case "import":
		return runFlowImport(ctx, args[1:], stdin, stdout, stderr)
	case "-h", "-help", "--help":
		return runFlowImport(ctx, args[:1], stdin, stdout, stderr)
	}
	return badinput.Errorf("unknown subcommand %q (want import)", args[0])
}

const flowImportExamples = `  # A browser's recording (DevTools, Network tab: "Save all as HAR") as a flow
  loadlab flow import recording.har > flow.yaml
  loadlab attack -flow flow.yaml -rate 10/s -duration 1m | loadlab report -by step

  # Keep the API host too, and the static assets
  loadlab flow import -hosts api.example.com -include-static recording.har > flow.yaml`

func runFlowImport(_ context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) error {
	fs := newFlagSet("flow import", "[flags] recording.har   (writes the flow's YAML to stdout)", flowImportExamples, stderr)
	includeStatic := fs.Bool("include-static", false, "keep static assets (images, style sheets, scripts, fonts, media, by media type and extension)")
	hosts := fs.String("hosts", "", "comma-separated `hosts` kept besides the first document's (host or host:port); requests to other hosts are left out")
	minThink := fs.Duration("min-think", har.DefaultMinThink, "shortest recorded pause between requests written as a think step")
	name := fs.String("name", "", "the flow's name (default: the recording's file name)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return badinput.Errorf("want one HAR file, got %d arguments", fs.NArg())
	}
	if *minThink <= 0 {
		return badinput.Field("-min-think", "want a duration above 0, e.g. 100ms")
	}
	file := fs.Arg(0)
	data, err := os.ReadFile(file)
	if err != nil {
		return badinput.Wrap(file, err)
	}
	rec, err := har.Read(data)
	if err != nil {
		return badinput.Wrap(file, err)
	}
	opts := har.Options{Name: *name, IncludeStatic: *includeStatic, MinThink: *minThink}
	for _, h := range strings.Split(*hosts, ",") {
		if h = strings.TrimSpace(h); h != "" {
			opts.Hosts = append(opts.Hosts, h)
		}
	}
	if opts.Name == "" {
		opts.Name = strings.TrimSuffix(filepath.Base(file), filepath.Ext(file))
	}
	f := har.Convert(rec, opts)
	if f.Kept == 0 {
		return badinput.Wrap(file, badinput.Errorf("no request left to replay: all %d are static assets, other hosts or not HTTP (-include-static, -hosts)", f.Total))
	}
	_, err = stdout.Write(f.YAML(filepath.Base(file)))
	return err
}
