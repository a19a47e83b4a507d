// Package component starts the processes of an experiment (the origin
// simulator and proxy, which are this same binary, or any command: a build
// under test), finds the address each one listens on from its output,
// health-checks it, keeps its last output lines, notices when it dies, and
// stops it by PID.
package component

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/loadlab/loadlab/internal/redact"
)

// Spec describes one process to start.
type Spec struct {
	Name          string
	Argv          []string // program and arguments
	Env           []string // added to the environment
	Dir           string
	ListenPattern *regexp.Regexp // group 1 is the URL or host:port it listens on
	Addr          string         // address known in advance (then the pattern is not needed)
	Health        string         // path polled until it answers; "" checks only that the port accepts
	StartTimeout  time.Duration
	Log           io.Writer // receives every output line (may be nil)
}

// TailLines is how many output lines a Process keeps for the report.
const TailLines = 20

// Process is a started component.
type Process struct {
	Spec Spec
	URL  string // http://host:port
	PID  int

	cmd     *exec.Cmd
	done    chan struct{}
	waitErr error

	mu       sync.Mutex
	tail     []string
	stopping bool
	found    chan string
	output   sync.WaitGroup
}

// Start launches the process, waits until it prints its address (or, with
// Spec.Addr, until that address accepts connections) and answers its health
// path. On failure the process is stopped and the error carries its last
// output lines.
func Start(ctx context.Context, spec Spec) (*Process, error) {
	if len(spec.Argv) == 0 {
		return nil, errors.New("component " + spec.Name + ": empty command")
	}
	if spec.StartTimeout <= 0 {
		spec.StartTimeout = 10 * time.Second
	}
	p := &Process{Spec: spec, done: make(chan struct{}), found: make(chan string, 1)}
	cmd := exec.Command(spec.Argv[0], spec.Argv[1:]...)
	cmd.Env = append(os.Environ(), spec.Env...)
	cmd.Dir = spec.Dir
	dieWithParent(cmd)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("component %s: cannot start %s: %w", spec.Name, spec.Argv[0], err)
	}
	p.cmd, p.PID = cmd, cmd.Process.Pid
	p.output.Add(2)
	go p.scan(stdout)
	go p.scan(stderr)
	go func() {
		p.output.Wait()
		p.waitErr = cmd.Wait()
		close(p.done)
	}()

	deadline := time.Now().Add(spec.StartTimeout)
	sctx, cancel := context.WithDeadline(ctx, deadline)
	defer cancel()
	if err := p.awaitReady(sctx); err != nil {
		p.Stop(2 * time.Second)
		return nil, fmt.Errorf("component %s: %w%s", spec.Name, err, p.tailSuffix())
	}
	return p, nil
}

func (p *Process) awaitReady(ctx context.Context) error {
	addr := p.Spec.Addr
	if addr == "" {
		select {
		case a := <-p.found:
			addr = a
		case <-p.done:
			return fmt.Errorf("exited before listening (%s)", p.exitText())
		case <-ctx.Done():
			return fmt.Errorf("did not print its address (pattern %q) within %s", p.Spec.ListenPattern, p.Spec.StartTimeout)
		}
	}
	p.URL = normalise(addr)
	for {
		err := p.probe(ctx)
		if err == nil {
			return nil
		}
		select {
		case <-p.done:
			return fmt.Errorf("exited during health check (%s)", p.exitText())
		case <-ctx.Done():
			return fmt.Errorf("not healthy within %s: %v", p.Spec.StartTimeout, err)
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// probe checks the port (and the health path) once.
func (p *Process) probe(ctx context.Context) error {
	host := strings.TrimPrefix(strings.TrimPrefix(p.URL, "http://"), "https://")
	host, _, _ = strings.Cut(host, "/")
	if p.Spec.Health == "" {
		var d net.Dialer
		c, err := d.DialContext(ctx, "tcp", host)
		if err == nil {
			c.Close()
		}
		return err
	}
	rctx, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(rctx, http.MethodGet, p.URL+p.Spec.Health, nil)
	if err != nil {
		return err
	}
	resp, err := healthClient.Do(req)
	if err != nil {
		return err
	}
	io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<16))
	resp.Body.Close()
	if resp.StatusCode >= 500 {
		return fmt.Errorf("%s answered %s", p.Spec.Health, resp.Status)
	}
	return nil
}

var healthClient = &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}

// normalise turns "0.0.0.0:80", "[::]:80" or "127.0.0.1:80" into a URL a
// client on this machine can use.
func normalise(addr string) string {
	addr = strings.TrimRight(addr, "/.,;")
	scheme := "http://"
	if rest, ok := strings.CutPrefix(addr, "https://"); ok {
		scheme, addr = "https://", rest
	} else {
		addr = strings.TrimPrefix(addr, "http://")
	}
	host, port, err := net.SplitHostPort(addr)
	if err == nil {
		if host == "" || host == "0.0.0.0" || host == "::" {
			host = "127.0.0.1"
		}
		addr = net.JoinHostPort(host, port)
	}
	return scheme + addr
}

func (p *Process) scan(r io.Reader) {
	defer p.output.Done()
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		p.mu.Lock()
		p.tail = append(p.tail, line)
		if len(p.tail) > TailLines {
			p.tail = p.tail[len(p.tail)-TailLines:]
		}
		if p.Spec.Log != nil {
			fmt.Fprintln(p.Spec.Log, line)
		}
		p.mu.Unlock()
		if p.Spec.ListenPattern != nil && p.Spec.Addr == "" {
			if m := p.Spec.ListenPattern.FindStringSubmatch(line); len(m) > 1 {
				select {
				case p.found <- m[1]:
				default:
				}
			}
		}
	}
	io.Copy(io.Discard, r) // a too-long line: keep the pipe drained
}

// Tail returns the last output lines (at most TailLines).
func (p *Process) Tail() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.tail...)
}

func (p *Process) tailSuffix() string {
	t := p.Tail()
	if len(t) == 0 {
		return ""
	}
	if len(t) > 3 {
		t = t[len(t)-3:]
	}
	return "; last output: " + strings.Join(t, " | ")
}

// Done is closed when the process has exited.
func (p *Process) Done() <-chan struct{} { return p.done }

// Died reports whether the process exited without being asked to stop.
func (p *Process) Died() bool {
	select {
	case <-p.done:
		p.mu.Lock()
		defer p.mu.Unlock()
		return !p.stopping
	default:
		return false
	}
}

// ExitText describes how the process ended ("exit status 2", "killed").
func (p *Process) ExitText() string {
	select {
	case <-p.done:
		return p.exitText()
	default:
		return "running"
	}
}

func (p *Process) exitText() string {
	if p.waitErr == nil {
		return "exit status 0"
	}
	return p.waitErr.Error()
}

// Stop asks the process to end (SIGTERM), waits up to grace, then kills it.
// It is safe to call more than once and on a process that already exited.
func (p *Process) Stop(grace time.Duration) {
	p.mu.Lock()
	p.stopping = true
	p.mu.Unlock()
	select {
	case <-p.done:
		return
	default:
	}
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(grace):
		_ = p.cmd.Process.Kill()
		<-p.done
	}
}

// CommandLine quotes argv for display, its credentials redacted (package
// redact): what a run's summary and report show of a component.
func CommandLine(argv []string) string {
	out := make([]string, len(argv))
	for i, a := range redact.Args(argv) {
		if a == "" || strings.ContainsAny(a, " \t\"'$\\*?{}[]|&;<>()") {
			a = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		}
		out[i] = a
	}
	return strings.Join(out, " ")
}

// FreeAddr returns a loopback address with a port that was free a moment
// ago, for commands that take their listen address as an argument.
func FreeAddr() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer l.Close()
	return l.Addr().String(), nil
}
