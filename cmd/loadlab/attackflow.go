package main

import (
	"flag"
	"io"
	"strings"

	"github.com/loadlab/loadlab/internal/attack"
	"github.com/loadlab/loadlab/internal/badinput"
	"github.com/loadlab/loadlab/internal/flow"
)

// flowFlags are attack's flags for running a flow (docs/flows.md).
type flowFlags struct {
	file        string
	users       int
	maxSessions int
	set         map[string]bool
}

func (f *flowFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.file, "flow", "", "run the user journey of this flow `file` (- for stdin; YAML: requests, captures, checks, think times; docs/flows.md) instead of targets: -rate is then sessions per second, each running the flow once (open model), its requests due one after the other's answer plus think time")
	fs.IntVar(&f.users, "users", 0, "with -flow: a closed model of `N` users, each running the flow again as soon as it ends (think times included), instead of sessions arriving at -rate")
	fs.IntVar(&f.maxSessions, "max-sessions", attack.DefaultMaxWorkers, "with -flow: bound on sessions in flight; a session due while it is reached is recorded as dropped (\"dropped: max-sessions reached\"), never delayed")
}

// check checks the flow flags against the others, once parsed.
func (f *flowFlags) check(fs *flag.FlagSet) error {
	f.set = map[string]bool{}
	fs.Visit(func(fl *flag.Flag) { f.set[fl.Name] = true })
	if f.file == "" {
		for _, n := range []string{"users", "max-sessions"} {
			if f.set[n] {
				return badinput.Field("-"+n, "goes with -flow FILE")
			}
		}
		return nil
	}
	for _, n := range []string{"targets", "format", "lazy", "body", "duet", "header", "max-workers"} {
		if f.set[n] {
			return badinput.Field("-"+n, "does not go with -flow: the flow file holds the requests (and -max-sessions bounds the sessions)")
		}
	}
	if f.set["users"] && f.users < 1 {
		return badinput.Field("-users", "want 1 or more users, got %d", f.users)
	}
	if f.set["users"] && (f.set["rate"] || f.set["steps"]) {
		return badinput.Field("-users", "a closed model of N users has no arrival rate: give -users or -rate, not both")
	}
	if f.maxSessions < 1 {
		return badinput.Field("-max-sessions", "want 1 or more sessions in flight, got %d", f.maxSessions)
	}
	return nil
}

// load reads the flow file (nil without -flow), or stdin for -flow - (or
// /dev/stdin); a bad one is bad input, reported before anything is
// written.
func (f *flowFlags) load(stdin io.Reader) (*flow.Flow, error) {
	switch f.file {
	case "":
		return nil, nil
	case "-", "/dev/stdin":
		if stdin == nil {
			stdin = strings.NewReader("")
		}
		return flow.Read("stdin", stdin)
	}
	return flow.Load(f.file)
}

// apply sets the attack's bound: N users (a closed loop of N sessions at
// once) or the bound on sessions in flight.
func (f *flowFlags) apply(o *attack.Options) {
	if f.users > 0 {
		o.MaxWorkers = f.users
		return
	}
	o.MaxWorkers = f.maxSessions
}
