// Package demo holds the plan `loadlab demo` runs, embedded in the binary:
// the search-flood incident replayed (a /search flood plus a /news poll
// through an overflow pool and a fixed pool) at laptop scale.
package demo

import (
	"embed"
	"os"
	"path/filepath"

	"github.com/loadlab/loadlab/internal/experiment/plan"
)

//go:embed plan.yaml origin.json proxy.yaml
var files embed.FS

// Files lists the embedded files.
var Files = []string{"plan.yaml", "origin.json", "proxy.yaml"}

// Write copies the demo's files into dir and returns the plan's path.
func Write(dir string) (string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	for _, name := range Files {
		data, err := files.ReadFile(name)
		if err != nil {
			return "", err
		}
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			return "", err
		}
	}
	return filepath.Join(dir, "plan.yaml"), nil
}

// Load writes the demo's files into dir and loads its plan.
func Load(dir string) (*plan.Plan, error) {
	path, err := Write(dir)
	if err != nil {
		return nil, err
	}
	return plan.Load(path)
}
