package main

import (
	"os"
	"strings"
)

// childRaceOptions makes the copies of this test binary that the tests
// start as loadlab (LOADLAB_TEST_AS_BINARY=1) exit as soon as they are
// done. Under -race every process sleeps atexit_sleep_ms (1 s by default)
// before exiting, so that threads still running may report a race; the
// tests start a few hundred such processes, and that sleep was more than
// half of this package's time (510 s, 246 s without). Races are still
// detected and reported in every child, which still exits with the race
// detector's code (66) when it found one; only the idle second after the
// command returned is gone.
// A GORACE the user set keeps its own atexit_sleep_ms.
func childRaceOptions() {
	cur := os.Getenv("GORACE")
	if strings.Contains(cur, "atexit_sleep_ms") {
		return
	}
	os.Setenv("GORACE", strings.TrimSpace(cur+" atexit_sleep_ms=0"))
}
