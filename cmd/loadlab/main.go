// Command loadlab is a load-testing lab for HTTP services: a constant-rate
// generator with honest measurements (attack, report, plot, encode, compare),
// an origin simulator, a playground proxy and an experiment runner.
//
// This file only dispatches to the subcommands; each lives in its own file
// and registers itself with register().
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/pprof"
	"runtime/trace"
	"sort"
	"strings"
	"syscall"

	"github.com/loadlab/loadlab/internal/badinput"
)

// command is one loadlab subcommand.
type command struct {
	name    string
	summary string
	order   int // position in the help listing
	// run executes the command. ctx is cancelled on SIGINT/SIGTERM.
	run func(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error
}

// registry is a set of commands by name: loadlab's commands, or one
// command's subcommands (archive's).
type registry map[string]command

// commands are loadlab's commands.
var commands = registry{}

// register adds a subcommand; called from init() in each command's file.
func register(c command) { commands.register(c) }

// register adds c to r.
func (r registry) register(c command) { r[c.name] = c }

// sorted returns r's commands in their listing's order (by order, then
// name).
func (r registry) sorted() []command {
	cs := make([]command, 0, len(r))
	for _, c := range r {
		cs = append(cs, c)
	}
	sort.Slice(cs, func(i, j int) bool {
		if cs[i].order != cs[j].order {
			return cs[i].order < cs[j].order
		}
		return cs[i].name < cs[j].name
	})
	return cs
}

// names returns r's command names in their listing's order.
func (r registry) names() []string {
	var names []string
	for _, c := range r.sorted() {
		names = append(names, c.name)
	}
	return names
}

func main() {
	os.Exit(runMain(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// runMain runs loadlab with args and returns the process exit code:
// 0 success, 1 failure, 2 bad input (usage, flags, files).
func runMain(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		usage(stderr)
		return 2
	}
	name := args[0]
	switch name {
	case "-h", "-help", "--help", "help":
		if len(args) > 1 {
			return runMain([]string{args[1], "-help"}, stdin, stdout, stderr)
		}
		usage(stdout)
		return 0
	case "-version", "--version", "version":
		printVersion(stdout)
		return 0
	}
	cmd, ok := commands[name]
	if !ok {
		fmt.Fprintf(stderr, "loadlab: unknown command %q (loadlab -help lists the commands)\n", name)
		return 2
	}
	if path := os.Getenv("LOADLAB_CPUPROFILE"); path != "" { // for the benchmarks: where a command's CPU goes
		if pf, err := os.Create(path); err == nil && pprof.StartCPUProfile(pf) == nil {
			defer func() { pprof.StopCPUProfile(); pf.Close() }()
		}
	}
	if path := os.Getenv("LOADLAB_TRACE"); path != "" { // for the benchmarks: where a command's goroutines wait (go tool trace)
		if tf, err := os.Create(path); err == nil && trace.Start(tf) == nil {
			defer func() { trace.Stop(); tf.Close() }()
		}
	}
	if asksHelp(args[1:]) {
		// Help asked for is the answer, not a diagnostic: it goes to
		// standard output, so `loadlab attack -help | less` shows it.
		stderr = stdout
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	err := cmd.run(ctx, args[1:], stdin, stdout, stderr)
	return exitCode(stderr, name, err)
}

// exitCode prints err (if any) on one line and maps it to an exit code.
func exitCode(stderr io.Writer, name string, err error) int {
	switch {
	case err == nil:
		return 0
	case errors.Is(err, flag.ErrHelp):
		return 0
	case badinput.Is(err):
		fmt.Fprintf(stderr, "loadlab %s: %v\n", name, err)
		return 2
	default:
		var ec exitError
		if errors.As(err, &ec) {
			if ec.msg != "" {
				fmt.Fprintf(stderr, "loadlab %s: %s\n", name, ec.msg)
			}
			return ec.code
		}
		fmt.Fprintf(stderr, "loadlab %s: %v\n", name, err)
		return 1
	}
}

// exitError asks for a specific exit code (e.g. failed thresholds).
type exitError struct {
	code int
	msg  string
}

func (e exitError) Error() string { return e.msg }

func usage(w io.Writer) {
	fmt.Fprint(w, `loadlab: a load-testing lab for HTTP services.

Usage: loadlab <command> [flags]

Commands:
`)
	for _, c := range commands.sorted() {
		fmt.Fprintf(w, "  %-9s %s\n", c.name, c.summary)
	}
	fmt.Fprint(w, `
  version   print loadlab's version, commit and Go version

Run 'loadlab <command> -help' for the flags of a command, with examples.
The data flows one way: targets -> attack -> results -> report / plot / compare.
`)
}

// newFlagSet returns a FlagSet whose usage prints the synopsis, flags and
// examples, written to stderr, that returns errors instead of exiting.
func newFlagSet(name, synopsis, examples string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet("loadlab "+name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "Usage: loadlab %s %s\n\nFlags:\n", name, synopsis)
		fs.PrintDefaults()
		if examples != "" {
			fmt.Fprintf(stderr, "\nExamples:\n%s\n", strings.TrimRight(examples, "\n"))
		}
	}
	return fs
}

// parseFlags parses args. A bad flag becomes one bad-input line (exit 2)
// naming the flag, without the usage text; -help prints the usage and
// returns flag.ErrHelp (exit 0).
func parseFlags(fs *flag.FlagSet, args []string) error {
	out, usage := fs.Output(), fs.Usage
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	err := fs.Parse(args)
	fs.SetOutput(out)
	fs.Usage = usage
	switch {
	case err == nil:
		return nil
	case errors.Is(err, flag.ErrHelp):
		fs.Usage()
		return flag.ErrHelp
	}
	return badinput.Errorf("%v (see '%s -help')", err, fs.Name())
}

// flagSet reports whether the flag called name was given on the command
// line (fs parsed).
func flagSet(fs *flag.FlagSet, name string) bool {
	given := false
	fs.Visit(func(f *flag.Flag) { given = given || f.Name == name })
	return given
}

// asksHelp reports whether a command's arguments ask for its help: -h,
// -help or --help before any "--" (a subcommand's own -help too, as in
// `fleet ssh -help`).
func asksHelp(args []string) bool {
	for _, a := range args {
		switch a {
		case "--":
			return false
		case "-h", "-help", "--help":
			return true
		}
	}
	return false
}
