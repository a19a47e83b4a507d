package main

import (
	"context"
	"io"
	"os"

	"github.com/loadlab/loadlab/internal/badinput"
	"github.com/loadlab/loadlab/internal/metrics"
	"github.com/loadlab/loadlab/internal/redact"
	"github.com/loadlab/loadlab/internal/report"
	"github.com/loadlab/loadlab/internal/results"
	"github.com/loadlab/loadlab/internal/sent"
	"github.com/loadlab/loadlab/internal/shardset"
)

func init() {
	register(command{
		name:    "encode",
		summary: "convert results between loadlab, vegeta gob, CSV and JSON",
		order:   35,
		run:     runEncode,
	})
}

const encodeExamples = `  # A loadlab results stream as vegeta-compatible JSON lines (with due/step/target keys)
  loadlab encode -to json results.lll > results.json

  # vegeta's CSV (12 columns, readable by 'vegeta encode' and 'vegeta report'):
  # timestamps and latencies from the due time, so 'vegeta report' prints
  # the latencies 'loadlab report' does; -basis send gives vegeta's own
  loadlab encode -to csv -output results.csv results.lll
  loadlab encode -to csv -basis send -output sent.csv results.lll

  # And back: vegeta's gob, CSV or JSON into a compact loadlab stream
  loadlab encode -to loadlab -output archive.lll vegeta-results.bin

  # A loadlab stream for vegeta's own tools
  loadlab encode -to gob results.lll | vegeta report`

func runEncode(_ context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := newFlagSet("encode", "[flags] [files...]   (no files or -: stdin; the input format is detected)", encodeExamples, stderr)
	to := fs.String("to", "json", "output `format`: json (vegeta's JSON lines plus loadlab's due, step and target keys), csv (vegeta's 12 columns), gob (what vegeta attack writes) or loadlab (compact stream)")
	output := fs.String("output", "-", "output `file`; - writes to stdout")
	var basis metrics.Basis
	fs.Var(&basis, "basis", "for csv and gob, which carry one time per result: "+basisUsage+". json and loadlab keep both times")
	strict := fs.Bool("strict", false, "stop at the first damaged block of a loadlab results file and exit 2, instead of skipping to the next good block with a warning")
	force := fs.Bool("force", false, "merge results files that are shards of different attacks (or shards and whole attacks) anyway")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	format, err := results.ParseFormat(*to)
	if err != nil {
		return badinput.Field("-to", "%v", err)
	}
	oneTime := format == results.FormatCSV || format == results.FormatGob
	if !oneTime && flagSet(fs, "basis") {
		return badinput.Field("-basis", "-to %s keeps both the due and the send time; -basis applies to csv and gob", *to)
	}
	inputs, closeAll, err := openInputs(fs.Args(), stdin, !*strict)
	if err != nil {
		return err
	}
	defer closeAll()
	// Shards of one attack encode as one stream; shards of different
	// attacks are refused as report, plot and compare refuse them.
	if _, err := shardset.Check(shardMembers(inputs), *force); err != nil {
		return err
	}
	// vegeta's formats get what was really sent: a templated target's
	// URL rendered again (and, in JSON, its headers and body); a loadlab
	// stream keeps the templates, its header the means to render them.
	merged := inputs
	if format != results.FormatLoadlab {
		merged = make([]report.Input, len(inputs))
		for i, in := range inputs {
			merged[i] = in
			if s, ok := in.Dec.(*results.Source); ok {
				r, err := sent.New(s.Meta)
				if err != nil {
					return badinput.At(in.Name, 0, "%v", err)
				}
				merged[i].Dec = sent.Decoder(in.Dec, r)
			}
		}
	}
	merge := report.NewMerge(merged...)
	return withOutput(*output, fs.Args(), stdout, false, func(w io.Writer) error {
		enc, finish, err := newEncoder(format, w, inputs)
		if err != nil {
			return err
		}
		var r results.Result
		for {
			err := merge.Decode(&r)
			if err == io.EOF {
				break
			}
			if err != nil {
				return err
			}
			if oneTime {
				basis.ForVegeta(&r)
			}
			if err := enc.Encode(&r); err != nil {
				return err
			}
		}
		if err := finish(); err != nil {
			return err
		}
		// a damaged input read strictly fails the command before the
		// output is in place
		return readProblems("encode", merge, nil, stderr)
	})
}

func newEncoder(f results.Format, w io.Writer, inputs []report.Input) (results.Encoder, func() error, error) {
	none := func() error { return nil }
	switch f {
	case results.FormatCSV:
		e := results.NewCSVEncoder(w)
		return e, e.Flush, nil
	case results.FormatGob:
		return results.NewGobEncoder(w), none, nil
	case results.FormatLoadlab:
		meta := results.Meta{Generator: "loadlab " + version(), Command: redact.Args(os.Args)}
		if len(inputs) == 1 {
			if s, ok := inputs[0].Dec.(*results.Source); ok && s.Meta != nil {
				meta = *s.Meta
				meta.Created = meta.Created.UTC()
			}
		}
		e, err := results.NewWriter(w, meta)
		if err != nil {
			return nil, nil, err
		}
		return e, e.Close, nil
	default:
		return results.NewJSONEncoder(w), none, nil
	}
}
