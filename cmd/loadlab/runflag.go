package main

import (
	"fmt"
	"path/filepath"
	"strings"
)

// runUsage documents -run for the commands that take several runs.
const runUsage = "name a run read from several results files, such as the shard files of one split attack: `NAME=FILES`, FILES a comma-separated list of paths or quoted glob patterns; repeatable, these runs come first"

// runFlag collects -run NAME=FILE[,FILE...]: one run read from several
// results files, named NAME.
type runFlag []namedRun

// namedRun is one -run: its name and its files, patterns expanded.
type namedRun struct {
	Name  string
	Paths []string
}

func (f *runFlag) String() string {
	var parts []string
	for _, r := range *f {
		parts = append(parts, r.Name+"="+strings.Join(r.Paths, ","))
	}
	return strings.Join(parts, " ")
}

// Set parses NAME=FILE[,FILE...] and expands the glob patterns among the
// files (a pattern matching nothing is an error, a plain path is kept for
// opening to complain about).
func (f *runFlag) Set(s string) error {
	name, list, ok := strings.Cut(s, "=")
	name = strings.TrimSpace(name)
	if !ok || name == "" || strings.TrimSpace(list) == "" {
		return fmt.Errorf("want NAME=FILE[,FILE...], got %q", s)
	}
	for _, r := range *f {
		if r.Name == name {
			return fmt.Errorf("two runs are named %q", name)
		}
	}
	run := namedRun{Name: name}
	for _, p := range strings.Split(list, ",") {
		if p = strings.TrimSpace(p); p == "" {
			continue
		}
		if !strings.ContainsAny(p, "*?[") {
			run.Paths = append(run.Paths, p)
			continue
		}
		m, err := filepath.Glob(p)
		if err != nil {
			return fmt.Errorf("%s: %v", p, err)
		}
		if len(m) == 0 {
			return fmt.Errorf("%s matches no file", p)
		}
		run.Paths = append(run.Paths, m...)
	}
	*f = append(*f, run)
	return nil
}
