package blackbox

import (
	"context"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// pauseProcess stops this whole process (the generator, the loopback
// target and the control probe alike: a machine pause as the calibration
// lives it) for about d, n times, every `every`: a child shell sends the
// SIGCONT after d.
func pauseProcess(t *testing.T, n int, every, d time.Duration) {
	t.Helper()
	for range n {
		time.Sleep(every)
		wake := exec.Command("sh", "-c", "sleep "+strconv.FormatFloat(d.Seconds(), 'f', 3, 64)+"; kill -CONT "+strconv.Itoa(os.Getpid()))
		if err := wake.Start(); err != nil {
			t.Error(err)
			return
		}
		if err := syscall.Kill(os.Getpid(), syscall.SIGSTOP); err != nil {
			t.Error(err)
		}
		_ = wake.Wait()
	}
}

// TestCalibrationLeavesOutMachinePauses: the machine pauses five times
// for 150 ms while the calibration measures the service time of a real
// loopback target answering in 60 ms at 10 requests a second (a request
// in flight 60% of the time). Without the control probe, about one in
// seven low-load samples would be about 210 ms, a tail too common to
// drop as outliers, and the fit's p99 would be 3.5 times the target's.
// With it, the disturbed time blocks are left out (or the probe made
// again) and the fit says so.
func TestCalibrationLeavesOutMachinePauses(t *testing.T) {
	if testing.Short() {
		t.Skip("calibrates a live target for a few seconds")
	}
	q := startQueue(t, 4, 60*time.Millisecond, 100*time.Millisecond)
	done := make(chan struct{})
	go func() {
		defer close(done)
		pauseProcess(t, 5, 200*time.Millisecond, 150*time.Millisecond)
	}()
	var log strings.Builder
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	f, err := Calibrate(ctx, Options{Target: "GET " + q.URL + "/", Step: 2 * time.Second, Timeout: 2 * time.Second, MaxRate: 40, Budget: 300, Log: &log})
	<-done
	if err != nil {
		t.Fatalf("%v\n%s", err, log.String())
	}
	t.Logf("%s", log.String())
	var b strings.Builder
	WriteFit(&b, f)
	t.Logf("%s", b.String())
	if f.ServiceTime.P99 > 120*time.Millisecond || f.ServiceMean > 70*time.Millisecond {
		t.Errorf("service time p99 %v, mean %v: the pauses were taken for the target's (it answers in 60 ms)", f.ServiceTime.P99, f.ServiceMean)
	}
	if f.LeftOut == 0 || !strings.Contains(strings.Join(f.Notes, "\n"), "left out: the machine paused") {
		t.Errorf("%d blocks left out, notes %q: want the pauses said", f.LeftOut, f.Notes)
	}
}
