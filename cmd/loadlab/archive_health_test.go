package main

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/loadlab/loadlab/internal/archive/sqlstore"
	"github.com/loadlab/loadlab/internal/results"
	"github.com/loadlab/loadlab/internal/runblock"
	"github.com/loadlab/loadlab/internal/runblock/probe"
	"github.com/loadlab/loadlab/internal/testwait"
)

// TestArchiveHealthOfAPausedAttack pauses a real `loadlab attack` (the
// binary, SIGSTOP then SIGCONT 300 ms later: a machine pause as a busy
// runner makes one) and checks that what the archive keeps of the run
// shows it: the run's lag and Noise, "noisy" in `archive list` and
// `archive show`, and the time block covering the pause.
func TestArchiveHealthOfAPausedAttack(t *testing.T) {
	t.Parallel() // its own server and child; the pause only lengthens on a busy machine
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(10 * time.Millisecond)
		w.Write([]byte("ok"))
	}))
	defer srv.Close()
	dir := t.TempDir()
	db, out := filepath.Join(dir, "runs.db"), filepath.Join(dir, "paused.lll")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := loadlabCommand(ctx, "attack", "-rate", "100/s", "-duration", "5s", "-quiet", "-output", out, "-archive", db)
	cmd.Stdin = strings.NewReader("GET " + srv.URL + "/\n")
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// once the first results are flushed (the attack is under way), a
	// second more, then the pause
	if !testwait.Until(time.Minute, func() bool { st, err := os.Stat(out); return err == nil && st.Size() > 1024 }) {
		t.Fatal("the attack wrote no results")
	}
	time.Sleep(time.Second)
	stopAt := time.Now()
	if err := cmd.Process.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	time.Sleep(300 * time.Millisecond)
	if err := cmd.Process.Signal(syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("attack: %v: %s", err, stderr.String())
	}
	id := strings.TrimPrefix(strings.TrimSpace(stdout.String()), "archived: ")

	listed, errOut, code := runBinary(t, "", "archive", "list", "-db", db, "-type", "json")
	var runs []struct {
		ID     string          `json:"id"`
		Health runblock.Health `json:"health"`
	}
	if code != 0 || json.Unmarshal([]byte(listed), &runs) != nil || len(runs) != 1 || runs[0].ID != id {
		t.Fatalf("list: exit %d %s %s", code, listed, errOut)
	}
	h := runs[0].Health
	if h.LagP99 < 150*time.Millisecond || h.Noise <= runblock.NoisyLagShare || (probe.GeneratorMeasured() && h.GeneratorCPU <= 0) || h.Busy <= 0 {
		t.Errorf("the paused attack's health %+v: want a lag p99 of the pause (the 5th of 30 requests due in it: about 250ms), noisy, the machine measured", h)
	}
	text, _, _ := runBinary(t, "", "archive", "list", "-db", db)
	if hdr := lines(text)[0]; !strings.HasSuffix(hdr, "NOISE") || !strings.HasSuffix(lines(text)[1], "noisy") {
		t.Errorf("archive list does not mark the run noisy:\n%s", text)
	}
	shown, _, _ := runBinary(t, "", "archive", "show", "-db", db, id)
	if !strings.Contains(shown, "machine: ") || !strings.Contains(shown, "busy ") || !strings.Contains(shown, "; noisy: its own schedule lag p99") {
		t.Errorf("archive show:\n%s", shown)
	}

	// the block covering the middle of the pause has its lag
	src, err := results.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	var first time.Time
	for {
		var r results.Result
		if src.Decode(&r) != nil {
			break
		}
		if first.IsZero() || r.Due.Before(first) {
			first = r.Due
		}
	}
	src.Close()
	st, err := sqlstore.Open(context.Background(), db, false)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	blocks, err := st.Blocks(context.Background(), id, 0, "")
	if err != nil || len(blocks) != 3 {
		t.Fatalf("%d blocks (%v), want 3 of a 5 s attack", len(blocks), err)
	}
	i := int(stopAt.Add(150*time.Millisecond).Sub(first) / runblock.BlockLength)
	if i < 0 || i >= len(blocks) || blocks[i].LagP99 < 100*time.Millisecond {
		t.Errorf("the block covering the pause (%d of %d) has lag p99 %v", i, len(blocks), blocks[min(max(i, 0), len(blocks)-1)].LagP99)
	}
	var n uint64
	for _, b := range blocks {
		n += b.Requests
	}
	if n != 500 {
		t.Errorf("%d requests in the blocks, want 500", n)
	}
}

// `loadlab report` of an attack's results file says what the machine did
// while it ran (the stream's trailer); of a file written before loadlab
// recorded it, nothing.
func TestReportMachineLine(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("ok")) }))
	defer srv.Close()
	out := filepath.Join(t.TempDir(), "r.lll")
	if _, errOut, code := runBinary(t, "GET "+srv.URL+"/\n", "attack", "-rate", "40/s", "-duration", "1s", "-quiet", "-output", out); code != 0 {
		t.Fatalf("attack: %s", errOut)
	}
	text, errOut, code := runBinary(t, "", "report", out)
	if code != 0 || !strings.Contains(text, "\nMachine       ") || !strings.Contains(text, "busy ") || !strings.Contains(text, "% of p99)") {
		t.Errorf("report: exit %d %s\n%s", code, errOut, text)
	}
	old, _, code := runBinary(t, "", "report", "testdata/v1-stream.lll")
	if code != 0 || strings.Contains(old, "Machine") {
		t.Errorf("report of a stream without a trailer:\n%s", old)
	}
}
