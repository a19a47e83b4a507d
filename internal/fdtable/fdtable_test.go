//go:build linux && !loadlab_portable

package fdtable

import (
	"bufio"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// fdSize is the descriptor table's size, from /proc/self/status.
func fdSize(t *testing.T) int {
	t.Helper()
	f, err := os.Open("/proc/self/status")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "FDSize:"); ok {
			n, err := strconv.Atoi(strings.TrimSpace(v))
			if err != nil {
				t.Fatal(err)
			}
			return n
		}
	}
	t.Fatal("no FDSize in /proc/self/status")
	return 0
}

func TestReserveGrowsTheTable(t *testing.T) {
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil || lim.Cur < 8192 {
		t.Skipf("RLIMIT_NOFILE %d: too low to test", lim.Cur)
	}
	before := fdSize(t)
	// Within the limit, so that the test holds when run again in the same
	// process (-count): an earlier run has already grown the table.
	want := min(max(before*4, 8192), int(lim.Cur))
	if want <= before {
		t.Skipf("the table (%d) already reaches RLIMIT_NOFILE (%d): grown by an earlier run in this process", before, lim.Cur)
	}
	if got := Reserve(want); got != want {
		t.Fatalf("Reserve(%d) = %d", want, got)
	}
	if size := fdSize(t); size < want {
		t.Fatalf("FDSize %d after Reserve(%d) (was %d)", size, want, before)
	}
	// The copy is closed again: the next descriptor opened is a low one.
	f, err := os.Open("/proc/self/status")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if int(f.Fd()) >= want-1 {
		t.Fatalf("descriptor %d: the reserving copy was left open", f.Fd())
	}
}

func TestReserveIsCappedByTheLimit(t *testing.T) {
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		t.Fatal(err)
	}
	if lim.Cur > 1<<20 {
		t.Skipf("RLIMIT_NOFILE %d: capping would grow the table too far", lim.Cur)
	}
	if got := Reserve(int(lim.Cur) + 10); got != int(lim.Cur) {
		t.Fatalf("Reserve above the limit %d = %d", lim.Cur, got)
	}
}
