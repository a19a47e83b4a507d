package main

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/loadlab/loadlab/internal/load"
)

// TestCompareClosedLoops: closed-loop runs are compared on the throughput
// their users achieved, first, both sides and the change: within one
// sweep (16 users against 4, about twice the answers a second through
// the proxy's 8 workers), and between two run folders step against step
// by their users, not by the steps' places (the second run tried 16 users
// only: its first step is compared with the first run's second).
func TestCompareClosedLoops(t *testing.T) {
	before, sumBefore := sharedClosedLoopFolder(t)
	after, sumAfter := sharedClosedLoopFolder(t, 16)
	x4, x16 := sumBefore.Steps[0].Scenarios[0].Throughput, sumBefore.Steps[1].Scenarios[0].Throughput
	t.Logf("throughput: 4 users %.1f/s, 16 users %.1f/s; the second run's 16 users %.1f/s", x4, x16, sumAfter.Steps[0].Scenarios[0].Throughput)

	// One sweep: 16 users against 4.
	code, out, errOut := runCLI(t, nil, "compare", before)
	if code != 0 {
		t.Fatalf("compare: exit %d: %s", code, errOut)
	}
	row := regexp.MustCompile(`(?m)^\S+\s+throughput\s+(\S+ req/s)\s+(\S+ req/s)\s+\+\S+ req/s \(\S+\)\s+\[x\S+, x\S+\]\s+higher\s*$`)
	m := row.FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no throughput row (16 users higher than 4) in:\n%s", out)
	}
	if m[1] != load.FmtRate(x4)+" req/s" || m[2] != load.FmtRate(x16)+" req/s" {
		t.Errorf("throughput %s against %s, summary.json says %s and %s req/s", m[2], m[1], load.FmtRate(x16), load.FmtRate(x4))
	}
	if !strings.Contains(out, "Throughput (successful answers a second") {
		t.Errorf("the method does not say how throughput is judged:\n%s", out)
	}

	// Two folders: compared by users.
	code, out, errOut = runCLI(t, nil, "compare", before, after)
	if code != 0 {
		t.Fatalf("compare two folders: exit %d: %s", code, errOut)
	}
	if !strings.Contains(out, "== page, 16 users ==") || strings.Contains(out, "== page, 4 users ==") {
		t.Fatalf("the folders' steps are not compared by users:\n%s\n%s", out, errOut)
	}
	if want := fmt.Sprintf("throughput  %s req/s", load.FmtRate(x16)); !strings.Contains(out, want) {
		t.Errorf("the 16-user comparison's baseline throughput is not the first run's (%q):\n%s", want, out)
	}
	if !strings.Contains(errOut, "4-users") || !strings.Contains(errOut, "nothing to compare with") {
		t.Errorf("the first run's 4 users are not said to be alone: %s", errOut)
	}
}
