package lab

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/loadlab/loadlab/internal/attack/schedule"
)

// RunProcesses is Run with the origin and the proxy as the separate
// processes `loadlab origin` and `loadlab proxy` of the binary bin, as a
// user runs them (each its own Go runtime, timers and scheduler: what
// decides a race between the proxy's request timeout and an answer due
// at the same instant). The generator runs in this process.
func RunProcesses(bin, cfgYAML, recipe string, sch *schedule.Schedule, timeout time.Duration, path string) (Measured, error) {
	dir, err := os.MkdirTemp("", "loadlab-lab-")
	if err != nil {
		return Measured{}, err
	}
	defer os.RemoveAll(dir)
	rfile, cfile := filepath.Join(dir, "recipe.json"), filepath.Join(dir, "proxy.yaml")
	if err := os.WriteFile(rfile, []byte(recipe), 0o644); err != nil {
		return Measured{}, err
	}
	if err := os.WriteFile(cfile, []byte(cfgYAML), 0o644); err != nil {
		return Measured{}, err
	}
	origin, ourl, err := start(bin, "origin listening on ", "origin", "-recipe", rfile, "-listen", "127.0.0.1:0", "-seed", "1")
	if err != nil {
		return Measured{}, err
	}
	defer stop(origin)
	proxy, purl, err := start(bin, "proxy listening on ", "proxy", "-config", cfile, "-upstream", ourl, "-listen", "127.0.0.1:0")
	if err != nil {
		return Measured{}, err
	}
	defer stop(proxy)
	return attackPath(purl+path, sch, timeout)
}

// start runs bin with args and waits (up to 20 s) for the line naming its
// address.
func start(bin, prefix string, args ...string) (*exec.Cmd, string, error) {
	cmd := exec.Command(bin, args...)
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, "", err
	}
	cmd.Stderr = io.Discard
	if err := cmd.Start(); err != nil {
		return nil, "", err
	}
	found := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if rest, ok := strings.CutPrefix(sc.Text(), prefix); ok {
				found <- strings.Fields(rest)[0]
				break
			}
		}
		_, _ = io.Copy(io.Discard, out)
	}()
	select {
	case url := <-found:
		return cmd, url, nil
	case <-time.After(20 * time.Second):
		stop(cmd)
		return nil, "", fmt.Errorf("%s %s: no %q line within 20 s", bin, args[0], prefix)
	}
}

// stop ends a process this package started and reaps it.
func stop(cmd *exec.Cmd) {
	_ = cmd.Process.Kill()
	_ = cmd.Wait()
}
