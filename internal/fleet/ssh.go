package fleet

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// SSH runs one attack split between hosts reached over ssh: host i runs
// shard i+1 of len(Hosts) with the same targets (sent on its stdin) and
// start instant, and streams its results back over the connection into a
// local file. No agent or coordinator runs on the hosts: only ssh and
// loadlab.
type SSH struct {
	Hosts   []string  // ssh destinations ([user@]host)
	SSHArgs []string  // extra ssh options (-p, -i, -o ...)
	Remote  string    // the remote loadlab command (default "loadlab"), a shell prefix
	Targets []byte    // the targets file, sent to each host's stdin
	Flow    bool      // Targets is a self-contained flow: the hosts run attack -flow -
	Args    []string  // the attack's own flags
	StartAt time.Time // the common start instant
	Dir     string    // where the shard files are written
	Log     io.Writer // each host's stderr, prefixed with the host
}

// Run starts every shard, waits for all of them, and returns the shard
// files in shard order. A host that fails is named in the error; the other
// shards' files are kept.
func (s SSH) Run(ctx context.Context) ([]string, error) {
	remote := s.Remote
	if remote == "" {
		remote = "loadlab"
	}
	n := len(s.Hosts)
	files := make([]string, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i, host := range s.Hosts {
		files[i] = filepath.Join(s.Dir, fmt.Sprintf("shard-%d-of-%d.lll", i+1, n))
		args := append([]string{"attack"}, s.Args...)
		if s.Flow {
			args = append(args, "-flow", "-")
		}
		args = append(args, "-shard", fmt.Sprintf("%d/%d", i+1, n), "-start-at", s.StartAt.UTC().Format(time.RFC3339Nano), "-output", "-", "-quiet", "-shard-host", host)
		quoted := make([]string, len(args))
		for k, a := range args {
			quoted[k] = shellQuote(a)
		}
		sshArgs := append(append([]string{}, s.SSHArgs...), host, remote+" "+strings.Join(quoted, " "))
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = s.shard(ctx, host, sshArgs, files[i])
		}()
	}
	wg.Wait()
	var failed []string
	for i, err := range errs {
		if err != nil {
			failed = append(failed, fmt.Sprintf("%s (shard %d): %v", s.Hosts[i], i+1, err))
		}
	}
	if len(failed) > 0 {
		return files, fmt.Errorf("%s", strings.Join(failed, "; "))
	}
	return files, nil
}

// Preflight checks, before anything is sent, that every host answers over
// ssh and runs loadlab (`loadlab version`), in parallel. A host that does
// not is named in a *SetupError with ssh's last line.
func (s SSH) Preflight(ctx context.Context) error {
	remote := s.Remote
	if remote == "" {
		remote = "loadlab"
	}
	errs := make([]string, len(s.Hosts))
	var wg sync.WaitGroup
	for i, host := range s.Hosts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			args := append(append([]string{}, s.SSHArgs...), "-o", "BatchMode=yes", host, remote+" version")
			cmd := exec.CommandContext(ctx, "ssh", args...)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			out, err := cmd.Output()
			switch {
			case err != nil:
				msg := strings.TrimSpace(stderr.String())
				if j := strings.LastIndexByte(msg, '\n'); j >= 0 {
					msg = msg[j+1:]
				}
				if msg == "" {
					msg = err.Error()
				}
				if strings.Contains(msg, "not found") || strings.Contains(msg, "No such file") {
					msg += fmt.Sprintf(" (is loadlab installed on %s? give its path with -remote, e.g. -remote /usr/local/bin/loadlab)", host)
				}
				errs[i] = fmt.Sprintf("%s: %s", host, msg)
			case !strings.HasPrefix(string(out), "loadlab "):
				errs[i] = fmt.Sprintf("%s: %q is not loadlab (it printed %q)", host, remote+" version", strings.TrimSpace(string(out)))
			}
		}()
	}
	wg.Wait()
	var bad []string
	for _, e := range errs {
		if e != "" {
			bad = append(bad, e)
		}
	}
	if len(bad) > 0 {
		return &SetupError{Msg: "cannot start the shards (nothing was sent): " + strings.Join(bad, "; ")}
	}
	return nil
}

// shard runs one host's shard into file.
func (s SSH) shard(ctx context.Context, host string, sshArgs []string, file string) error {
	f, err := os.Create(file)
	if err != nil {
		return err
	}
	defer f.Close()
	cmd := exec.CommandContext(ctx, "ssh", sshArgs...)
	cmd.Stdin = bytes.NewReader(s.Targets)
	cmd.Stdout = f
	pr, pw := io.Pipe()
	cmd.Stderr = pw
	done := make(chan struct{})
	var last string
	go func() {
		defer close(done)
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			last = sc.Text()
			if s.Log != nil {
				fmt.Fprintf(s.Log, "%s: %s\n", host, last)
			}
		}
	}()
	err = cmd.Run()
	pw.Close()
	<-done
	if err != nil && last != "" {
		return fmt.Errorf("%v: %s", err, last)
	}
	return err
}

// shellQuote quotes s for a POSIX shell (ssh runs the remote command
// through the remote user's shell).
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./:=+,@%") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
