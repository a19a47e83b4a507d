package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestModelWake: `loadlab model` says which pool-manager costs its
// predictions assume: with -wake machine, this machine's, measured
// through the real pool and cached under the user's cache directory;
// with -wake reference (the tests' default, $LOADLAB_WAKE), the
// reference machine's; a bad value is refused in one line.
func TestModelWake(t *testing.T) {
	cache := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", cache)
	dir := t.TempDir()
	recipe := filepath.Join(dir, "origin.json")
	if err := os.WriteFile(recipe, []byte(`{"route": "/*", "stages": [{"at": 0, "status": 200, "latency": "10ms"}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	// Bad input is refused before anything is measured.
	code, _, stderr := runCLI(t, nil, "model", "-recipe", recipe, "-timeout", "-1s", "-wake", "machine")
	if files, _ := filepath.Glob(filepath.Join(cache, "loadlab", "*")); code != 2 || len(files) > 0 {
		t.Errorf("bad -timeout: exit %d (%q), cache %v: want exit 2 and nothing measured", code, stderr, files)
	}
	code, stdout, stderr := runCLI(t, nil, "model", "-recipe", recipe, "-rate", "10/s", "-duration", "2s")
	if code != 0 || !strings.Contains(stdout, "costs: costs of a reference machine (a shared 2-core VM): predictions near the knee assume its speed") {
		t.Errorf("default in tests: exit %d\n%s%s", code, stdout, stderr)
	}
	code, stdout, stderr = runCLI(t, nil, "model", "-recipe", recipe, "-rate", "10/s", "-duration", "2s", "-wake", "machine")
	if code != 0 || !strings.Contains(stdout, "costs: costs measured on this machine (") {
		t.Errorf("-wake machine: exit %d\n%s%s", code, stdout, stderr)
	}
	if files, _ := filepath.Glob(filepath.Join(cache, "loadlab", "costs-*.json")); len(files) != 1 {
		t.Errorf("cached costs: %v, want one file under the cache directory", files)
	}
	code, _, stderr = runCLI(t, nil, "model", "-recipe", recipe, "-wake", "fast")
	if code != 2 || !strings.Contains(stderr, "-wake: want machine, measure or reference, got \"fast\"") || strings.Count(strings.TrimSpace(stderr), "\n") > 0 {
		t.Errorf("-wake fast: exit %d, %q", code, stderr)
	}
}
