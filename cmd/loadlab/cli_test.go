package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestEveryCommandHasHelp: `loadlab <cmd> -help` exits 0 and documents its
// flags with examples on standard output (so it pages), for every
// registered command.
func TestEveryCommandHasHelp(t *testing.T) {
	if len(commands) < 9 {
		t.Fatalf("only %d commands registered", len(commands))
	}
	for name := range commands {
		t.Run(name, func(t *testing.T) {
			code, stdout, stderr := runCLI(t, nil, name, "-help")
			if code != 0 || !strings.Contains(stdout, "Usage: loadlab "+name) ||
				!strings.Contains(stdout, "Flags:") || !strings.Contains(stdout, "Examples:") || stderr != "" {
				t.Fatalf("exit %d, help:\n%s\nstderr:\n%s", code, stdout, stderr)
			}
		})
	}
	code, stdout, _ := runCLI(t, nil, "-help")
	if code != 0 || !strings.Contains(stdout, "Commands:") || !strings.Contains(stdout, "version") {
		t.Fatalf("loadlab -help: exit %d\n%s", code, stdout)
	}
	code, stdout, _ = runCLI(t, nil, "version")
	if code != 0 || !strings.Contains(stdout, "commit ") || !strings.Contains(stdout, "go1.") {
		t.Fatalf("loadlab version: exit %d\n%s", code, stdout)
	}
}

// TestOriginAndProxyBadInput: bad recipes and configs are refused before
// anything listens, with one line naming the file and the field, exit 2.
func TestOriginAndProxyBadInput(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	badRecipe := write("bad.json", `{"stages": [{"at": 0, "status": 200, "latency": "fast"}]}`)
	notJSON := write("notjson.json", `{"stages": [`)
	badProxy := write("bad.yaml", "pools:\n  a:\n    size: 4\n    checkout_timeout: soon\nroutes:\n  - path: /*\n    upstream: http://127.0.0.1:1\n    pool: a\n")
	unknownField := write("unknown.yaml", "pools:\n  a:\n    size: 4\n    sise: 5\n")
	tests := []struct {
		name string
		args []string
		want []string // all must appear in the one line on stderr
	}{
		{"recipe bad latency", []string{"origin", "-recipe", badRecipe, "-listen", "127.0.0.1:0"}, []string{"bad.json", "latency", "fast"}},
		{"recipe not JSON", []string{"origin", "-recipe", notJSON, "-listen", "127.0.0.1:0"}, []string{"notjson.json"}},
		{"recipe missing", []string{"origin", "-recipe", filepath.Join(dir, "nope.json")}, []string{"nope.json"}},
		{"origin recipe size", []string{"origin", "-max-recipe-size", "lots", "-listen", "127.0.0.1:0"}, []string{"-max-recipe-size"}},
		{"origin memory", []string{"origin", "-max-recipe-memory", "0", "-listen", "127.0.0.1:0"}, []string{"-max-recipe-memory", "positive"}},
		{"origin file", []string{"origin", "-origin-file", "https://x.invalid/=" + filepath.Join(dir, "gone.html"), "-listen", "127.0.0.1:0"}, []string{"-origin-file", "gone.html"}},
		{"origin listen", []string{"origin", "-listen", "8080"}, []string{"-listen", "host:port"}},
		{"origin tls-cert", []string{"origin", "-tls-cert", filepath.Join(dir, "c.pem"), "-listen", "127.0.0.1:0"}, []string{"-tls-cert", "-tls"}},
		{"origin idle", []string{"origin", "-idle-timeout", "0", "-listen", "127.0.0.1:0"}, []string{"-idle-timeout"}},
		{"proxy bad duration", []string{"proxy", "-config", badProxy, "-check"}, []string{"bad.yaml:4", "checkout_timeout"}},
		{"proxy unknown field", []string{"proxy", "-config", unknownField, "-check"}, []string{"unknown.yaml:4", "sise"}},
		{"proxy missing config", []string{"proxy", "-config", filepath.Join(dir, "nope.yaml")}, []string{"nope.yaml"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, _, stderr := runCLI(t, nil, tc.args...)
			lines := strings.Split(strings.TrimSpace(stderr), "\n")
			if code != 2 || len(lines) != 1 {
				t.Fatalf("exit %d (want 2), stderr:\n%s", code, stderr)
			}
			for _, w := range tc.want {
				if !strings.Contains(stderr, w) {
					t.Errorf("stderr %q lacks %q", stderr, w)
				}
			}
		})
	}
}
