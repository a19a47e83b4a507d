package main

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"
)

// startServe runs the real binary's `archive serve` and returns it with
// the address it printed.
func startServe(t *testing.T, args ...string) (*exec.Cmd, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	cmd := loadlabCommand(ctx, append([]string{"archive", "serve"}, args...)...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	sc := bufio.NewScanner(stderr)
	re := regexp.MustCompile(`^archive site: (http://\S+)$`)
	for sc.Scan() {
		if m := re.FindStringSubmatch(sc.Text()); m != nil {
			go func() { _, _ = io.Copy(io.Discard, stderr) }()
			return cmd, m[1]
		}
		t.Logf("serve: %s", sc.Text())
	}
	t.Fatal("archive serve printed no address")
	return nil, ""
}

func fetchStatus(t *testing.T, method, url string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest(method, url, nil)
	client := &http.Client{Timeout: 30 * time.Second, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// `archive serve` serves the site of a real archive until interrupted,
// read-only, and ends cleanly on SIGINT.
func TestArchiveServe(t *testing.T) {
	db := filepath.Join(t.TempDir(), "runs.db")
	out, errOut, code := runBinary(t, "", "archive", "add", "-db", db, regressionHunt)
	ids := lines(out)
	if code != 0 || len(ids) != 6 {
		t.Fatalf("add: exit %d %q %s", code, ids, errOut)
	}
	cmd, url := startServe(t, "-db", db, "-listen", "127.0.0.1:0")
	if strings.Contains(url, "token=") {
		t.Errorf("a loopback site needs no token: %s", url)
	}
	status, body := fetchStatus(t, "GET", url)
	if status != 200 || !strings.Contains(body, ids[3]) || !strings.Contains(body, "runs 1–6 of 6") {
		t.Errorf("index: %d, %.300s", status, body)
	}
	if status, body := fetchStatus(t, "GET", url+"runs/"+ids[3]); status != 200 || !strings.Contains(body, "build=2020-02-04") {
		t.Errorf("run page: %d", status)
	}
	if status, _ := fetchStatus(t, "POST", url); status != http.StatusMethodNotAllowed {
		t.Errorf("POST: %d, want 405", status)
	}
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("after SIGINT: %v, want exit 0", err)
		}
	case <-time.After(20 * time.Second):
		t.Error("archive serve did not end within 20 s of SIGINT")
	}
}

// Beyond loopback a token is made up and printed, and required.
func TestArchiveServeToken(t *testing.T) {
	db := filepath.Join(t.TempDir(), "runs.db")
	if _, errOut, code := runBinary(t, "", "archive", "add", "-db", db, regressionHunt); code != 0 {
		t.Fatal(errOut)
	}
	_, url := startServe(t, "-db", db, "-listen", "0.0.0.0:0") // reached below on loopback only
	m := regexp.MustCompile(`^http://[^/?]+:(\d+)/\?token=([0-9a-f]{32})$`).FindStringSubmatch(url)
	if m == nil {
		t.Fatalf("address %q: want a made-up token", url)
	}
	base := "http://127.0.0.1:" + m[1] + "/"
	if status, _ := fetchStatus(t, "GET", base); status != http.StatusUnauthorized {
		t.Errorf("without the token: %d, want 401", status)
	}
	if status, _ := fetchStatus(t, "GET", base+"?token="+m[2]); status != http.StatusSeeOther {
		t.Errorf("with the token: %d, want 303 (to drop it from the address)", status)
	}
}

func TestArchiveServeBadInput(t *testing.T) {
	dir := t.TempDir()
	junk := filepath.Join(dir, "junk.db")
	if err := os.WriteFile(junk, []byte("this is not a database, it is a text file of some length........"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{},                                   // no -db
		{"-db", filepath.Join(dir, "no.db")}, // serve never creates an archive
		{"-db", junk},
		{"-db", junk, "-listen", "nope"},
		{"-db", junk, "extra"},
		{"-nosuchflag"},
		{"-db", junk, "-link", "commit=javascript:alert(1)//{}"}, // only http(s) templates
		{"-db", junk, "-link", "commit=https://git.example/commit/"},
	} {
		out, errOut, code := runBinary(t, "", append([]string{"archive", "serve"}, args...)...)
		if code != 2 || out != "" || len(lines(errOut)) != 1 || (len(args) > 2 && args[2] == "-link" && !strings.Contains(errOut, "-link")) {
			t.Errorf("serve %q: exit %d, stdout %q, stderr %q; want exit 2 and one line", args, code, out, errOut)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "no.db")); err == nil {
		t.Error("serve created an archive")
	}
}
