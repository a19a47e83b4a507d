package main

import (
	"context"
	"fmt"
	"io"

	"strings"
	"time"

	"github.com/loadlab/loadlab/internal/badinput"
	"github.com/loadlab/loadlab/internal/fleet"
)

// runFleetPod is a Job pod's command: the shard's attack, then, with
// -hold, the pod keeps its results file until `loadlab fleet collect` has
// taken every byte (or the hold time has passed), so the Job completes
// only once the results are safe. It exits with the attack's code.
func runFleetPod(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("fleet", "pod [-hold D] -- [attack flags] (a Job pod's command)", "", stderr)
	hold := fs.Duration("hold", 0, "how long to keep the results file for loadlab fleet collect after the attack, e.g. `30m` (0: do not wait)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	attackArgs := fs.Args()
	file := outputOf(attackArgs)
	if *hold > 0 && (file == "" || file == "-") {
		return badinput.Field("-hold", "needs the attack's -output file to hold")
	}
	err := commands["attack"].run(ctx, attackArgs, strings.NewReader(""), stdout, stderr)
	code := exitCode(stderr, "attack", err)
	if *hold <= 0 {
		return codeError(code)
	}
	if merr := fleet.MarkEnded(file, code); merr != nil {
		return fmt.Errorf("marking %s ended: %v", file, merr)
	}
	if !fleet.Hold(ctx, file, *hold, 200*time.Millisecond) {
		fmt.Fprintf(stderr, "loadlab fleet: %s was not collected within %s\n", file, *hold)
		if code == 0 {
			code = 1
		}
	}
	return codeError(code)
}

// runFleetCollect prints a pod's results file as the attack writes it,
// until the attack has ended, then marks it collected: `kubectl exec POD
// -- loadlab fleet collect FILE > shard.lll`. It exits with the attack's
// code.
func runFleetCollect(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("fleet", "collect [-from BYTES] FILE (inside a Job pod)", "", stderr)
	from := fs.Int64("from", 0, "start at this byte `offset` (resume a cut collection)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return badinput.Errorf("want loadlab fleet collect FILE")
	}
	if *from < 0 {
		return badinput.Field("-from", "want a byte offset of 0 or more, got %d", *from)
	}
	code, err := fleet.Collect(ctx, fs.Arg(0), *from, stdout, 200*time.Millisecond)
	if err != nil {
		return exitError{code: 1, msg: "collect: " + err.Error()}
	}
	if code != 0 {
		return exitError{code: code, msg: fmt.Sprintf("collect: the attack exited %d", code)}
	}
	return nil
}

// outputOf is the value of the last -output flag in attack arguments.
func outputOf(args []string) string {
	out := ""
	for i, a := range args {
		a = strings.TrimPrefix(a, "-")
		switch {
		case a == "-output" || a == "output":
			if i+1 < len(args) {
				out = args[i+1]
			}
		case strings.HasPrefix(a, "output=") || strings.HasPrefix(a, "-output="):
			out = a[strings.IndexByte(a, '=')+1:]
		}
	}
	return out
}

// codeError turns an exit code already reported into an error that keeps it.
func codeError(code int) error {
	if code == 0 {
		return nil
	}
	return exitError{code: code}
}
