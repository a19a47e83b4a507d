// Package labproc builds loadlab and runs it as real processes for the
// benchmarks under bench/: the servers (origin, proxy), started, waited
// for ("listening on URL") and stopped, and attacks with their JSON
// report; one way of doing each, for every benchmark program.
package labproc

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"time"
)

// Build compiles ./cmd/loadlab into dir and returns the binary's path.
// Benchmarks run from the repository's root (go run ./bench/...), so
// that is the tree built.
func Build(dir string) (string, error) {
	bin := filepath.Join(dir, "loadlab")
	if out, err := exec.Command("go", "build", "-o", bin, "./cmd/loadlab").CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build: %v\n%s", err, out)
	}
	return bin, nil
}

var listening = regexp.MustCompile(`listening on (http://[0-9.:]+)`)

// Start runs bin with args and waits up to 10 s for the "listening on
// URL" line it prints; log, if not nil, receives its output. It returns
// the URL and the running command (stop it with Stop).
func Start(ctx context.Context, log io.Writer, bin string, args ...string) (string, *exec.Cmd, error) {
	cmd := exec.Command(bin, args...)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return "", nil, err
	}
	if log == nil {
		log = io.Discard
	}
	cmd.Stderr = log
	if err := cmd.Start(); err != nil {
		return "", nil, err
	}
	found := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if m := listening.FindStringSubmatch(sc.Text()); m != nil {
				select {
				case found <- m[1]:
				default:
				}
			}
			fmt.Fprintln(log, sc.Text())
		}
	}()
	select {
	case u := <-found:
		return u, cmd, nil
	case <-time.After(10 * time.Second):
		Stop(cmd)
		return "", nil, fmt.Errorf("%s did not start in 10 s", args[0])
	case <-ctx.Done():
		Stop(cmd)
		return "", nil, ctx.Err()
	}
}

// Server is Start for a benchmark's main, its output to stderr: it
// returns the URL and a function that stops the server, and when the
// server does not start it prints why and exits with status 2.
func Server(bin string, args ...string) (string, func()) {
	u, cmd, err := Start(context.Background(), os.Stderr, bin, args...)
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", filepath.Base(os.Args[0]), err)
		os.Exit(2)
	}
	return u, func() { Stop(cmd) }
}

// Stop interrupts cmd (if it is still running) and waits up to 20 s for
// it to end, then kills it.
func Stop(cmd *exec.Cmd) {
	if cmd.Process == nil || cmd.ProcessState != nil {
		return
	}
	_ = cmd.Process.Signal(os.Interrupt)
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		_ = cmd.Process.Kill()
		<-done
	}
}

// Figures are the JSON report's figures the benchmarks print.
type Figures struct {
	Requests    int            `json:"requests"`
	Success     float64        `json:"success"`
	StatusCodes map[string]int `json:"status_codes"`
	Latencies   struct {
		P50 time.Duration `json:"50th"`
		P99 time.Duration `json:"99th"`
		Max time.Duration `json:"max"`
	} `json:"latencies"`
}

// Attack runs `loadlab attack` with args and targets (vegeta's http
// format) on its standard input, its results written to out, and returns
// the figures of `loadlab report -type=json` of them.
func Attack(bin, out, targets string, args ...string) (*Figures, error) {
	cmd := exec.Command(bin, append(append([]string{"attack"}, args...), "-output="+out)...)
	cmd.Stdin = strings.NewReader(targets)
	if b, err := cmd.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("attack: %v\n%s", err, b)
	}
	b, err := exec.Command(bin, "report", "-type=json", out).Output()
	if err != nil {
		return nil, fmt.Errorf("report: %v", err)
	}
	var f Figures
	if err := json.Unmarshal(b, &f); err != nil {
		return nil, fmt.Errorf("report: %v", err)
	}
	return &f, nil
}
