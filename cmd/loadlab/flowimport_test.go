package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// loadlab flow import, through the real binary: a recording made by
// headless Chromium becomes a flow on stdout; bad recordings are one line
// naming the file, exit 2, nothing on stdout.
func TestFlowImportCommand(t *testing.T) {
	har := "../../internal/flow/har/testdata/login-browse.har"
	out, errs, code := runBinary(t, "", "flow", "import", har)
	if code != 0 || errs != "" {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, want := range []string{"name: login-browse\n", "{var: token, json: $.token}", "Authorization: Bearer {{token}}", "think: ", "method: POST"} {
		if !strings.Contains(out, want) {
			t.Errorf("the flow lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "logo.png") || strings.Contains(out, "/collect") {
		t.Errorf("static assets or the other host kept:\n%s", out)
	}
	out, _, _ = runBinary(t, "", "flow", "import", "-include-static", "-hosts", "127.0.0.1:45487", "-name", "all", har)
	if !strings.Contains(out, "logo.png") || !strings.Contains(out, "/collect") || !strings.Contains(out, "name: all\n") {
		t.Errorf("-include-static -hosts -name:\n%s", out)
	}

	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	onlyStatic := `{"log": {"entries": [{"startedDateTime": "2026-01-02T03:04:05Z", "request": {"url": "http://a.test/x.png"}, "response": {"status": 200, "content": {"mimeType": "image/png"}}}]}}`
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"not JSON", []string{write("page.har", "<html>\n")}, "page.har:1: not JSON"},
		{"not a HAR", []string{write("other.har", `{"version": 1}`)}, "other.har: log.entries: missing: not a HAR file"},
		{"no entries", []string{write("empty.har", `{"log": {"entries": []}}`)}, "empty.har: log.entries: no entries"},
		{"only static", []string{write("static.har", onlyStatic)}, "static.har: no request left to replay"},
		{"missing", []string{filepath.Join(dir, "nope.har")}, "nope.har:"},
		{"two files", []string{har, har}, "want one HAR file"},
		{"no subcommand", nil, "want a subcommand: import"},
		{"bad min-think", []string{"-min-think", "0s", har}, "-min-think: want a duration above 0"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			args := []string{"flow"}
			if c.args != nil {
				args = append(args, "import")
				args = append(args, c.args...)
			}
			out, errs, code := runBinary(t, "", args...)
			lines := strings.Split(strings.TrimSpace(errs), "\n")
			last := lines[len(lines)-1]
			if code != 2 || out != "" || !strings.Contains(last, c.want) || !strings.HasPrefix(last, "loadlab flow: ") {
				t.Errorf("exit %d, stdout %q, stderr %q; want 2, nothing, and a line with %q", code, out, errs, c.want)
			}
			if c.args != nil && len(lines) != 1 {
				t.Errorf("stderr has %d lines, want 1: %q", len(lines), errs)
			}
		})
	}
}
