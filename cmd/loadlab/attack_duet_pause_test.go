package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/loadlab/loadlab/internal/testwait"
)

// compareJSON is the part of `loadlab compare -type json` the duet test
// reads.
type compareJSON struct {
	Outcome     string `json:"outcome"`
	Comparisons []struct {
		Duet    bool `json:"duet"`
		Figures []struct {
			Stat     string      `json:"stat"`
			Interval *[2]float64 `json:"interval"`
			Verdict  string      `json:"verdict"`
		} `json:"figures"`
	} `json:"comparisons"`
}

// figureInterval runs `loadlab compare -type json args...` and returns the
// interval of stat (of the first comparison) and its verdict.
func figureInterval(t *testing.T, stat string, args ...string) ([2]float64, string, bool) {
	t.Helper()
	out, errOut, code := runBinary(t, "", append([]string{"compare", "-type", "json"}, args...)...)
	if code != 0 {
		t.Fatalf("compare %v: exit %d: %s", args, code, errOut)
	}
	var doc compareJSON
	if err := json.Unmarshal([]byte(out), &doc); err != nil || len(doc.Comparisons) == 0 {
		t.Fatalf("compare json: %v\n%s", err, out)
	}
	for _, f := range doc.Comparisons[0].Figures {
		if f.Stat == stat {
			if f.Interval == nil {
				return [2]float64{}, f.Verdict, false
			}
			return *f.Interval, f.Verdict, true
		}
	}
	t.Fatalf("compare json has no %s figure:\n%s", stat, out)
	return [2]float64{}, "", false
}

// pausedAttack runs `loadlab attack` as a process of its own and, once
// its first results are on disk, stops the process (SIGSTOP) for pause:
// a real machine pause of the load generator, as a busy neighbour or a
// hypervisor inflicts. pause 0 runs it undisturbed.
func pausedAttack(t *testing.T, targets, out string, pause time.Duration, args ...string) {
	t.Helper()
	cmd := loadlabCommand(context.Background(), append([]string{"attack", "-quiet", "-output", out}, args...)...)
	cmd.Stdin = strings.NewReader(targets)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	if pause > 0 {
		// The stream is flushed every 250 ms: once it holds results, the
		// attack is under way (and far from its end).
		testwait.Eventually(t, 10*time.Second, "the attack's first results", func() bool {
			st, err := os.Stat(out)
			return err == nil && st.Size() > 4096
		})
		if err := cmd.Process.Signal(syscall.SIGSTOP); err != nil {
			t.Fatal(err)
		}
		time.Sleep(pause)
		if err := cmd.Process.Signal(syscall.SIGCONT); err != nil {
			t.Fatal(err)
		}
	}
	if err := <-done; err != nil {
		t.Fatalf("attack: %v: %s", err, stderr.String())
	}
}

// maxDuetWidth is the widest interval of B/A an A/A duet may have on a
// paused machine here. The duet's blocks hold whole request pairs, so the
// pause's lag ramp falls alike on both sides; what is left is each
// request's own noise, which pairing cannot cancel: in this test's 3 s, a
// pause's catch-up burst sent by a race-built generator on a loaded
// 2-core box leaves 4-8%; the plain binary 2-2.5%; a 30 s duet of two
// origins on the same box 1.6% (bench/HISTORY.md). The sequential pair's
// interval spans a factor of several.
const maxDuetWidth = 0.10

// TestDuetCancelsAMachinePause measures one origin (a loopback server
// answering in 15 ms) against itself, A/A, on a machine
// paused for 300 ms while it measures: twice in sequence, the second run
// paused, and once as a duet (requests alternating between the origin
// written as 127.0.0.1 and as [::ffff:127.0.0.1], the same address), paused
// the same way. The
// duet's interval of B/A of the mean contains 1, is narrower than
// maxDuetWidth and than half the sequential runs' interval, which does
// not (it is wider, or misses 1): the pause fell on one run only. A measurement that cannot say is retried, up
// to three times, then fails.
func TestDuetCancelsAMachinePause(t *testing.T) {
	if testing.Short() {
		t.Skip("runs 9 s of load in processes")
	}
	origin := sleeper(t, 15*time.Millisecond).URL
	port := origin[strings.LastIndex(origin, ":")+1:]
	targets := fmt.Sprintf("GET http://127.0.0.1:%s/\n", port)
	load := []string{"-rate", "400", "-duration", "3s"}
	const pause = 300 * time.Millisecond
	var why string
	for attempt := 1; attempt <= 3; attempt++ {
		dir := t.TempDir()
		a, b, d := filepath.Join(dir, "a.lll"), filepath.Join(dir, "b.lll"), filepath.Join(dir, "duet.lll")
		pausedAttack(t, targets, a, 0, load...)
		pausedAttack(t, targets, b, pause, load...)
		pausedAttack(t, targets, d, pause, append(load, "-duet", "http://[::ffff:127.0.0.1]:"+port)...)

		seq, seqVerdict, seqOK := figureInterval(t, "mean", "-resamples", "2000", a, b)
		duet, duetVerdict, duetOK := figureInterval(t, "mean", "-resamples", "2000", "-duet", d)
		t.Logf("attempt %d: sequential B/A mean %v (%s), duet %v (%s)", attempt, seq, seqVerdict, duet, duetVerdict)
		seqWidth, duetWidth := seq[1]-seq[0], duet[1]-duet[0]
		seqFooled := seqOK && seq[0] <= 1 && 1 <= seq[1] && seqWidth < maxDuetWidth
		duetHolds := duetOK && duet[0] <= 1 && 1 <= duet[1] && duetWidth < maxDuetWidth && duetWidth < seqWidth/2 &&
			duetVerdict != "slower" && duetVerdict != "faster"
		switch {
		case seqFooled:
			why = fmt.Sprintf("the paused sequential run was not told apart: interval %v", seq)
		case !duetHolds:
			why = fmt.Sprintf("the duet's interval %v (%s) does not hold 1 within %.0f%%, or is not half the sequential's %v", duet, duetVerdict, 100*maxDuetWidth, seq)
		default:
			if seqVerdict == "slower" || seqVerdict == "faster" {
				t.Logf("the sequential pair was judged %s: a false regression", seqVerdict)
			}
			return
		}
		t.Logf("attempt %d: %s", attempt, why)
	}
	t.Fatal(why)
}
