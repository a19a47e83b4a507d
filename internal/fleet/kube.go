package fleet

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
)

// Kube applies an Indexed Job through the user's kubectl (its context,
// credentials and plugins, as the user has them), waits for the Job
// controller's pods, and streams each pod's results back over `kubectl
// exec ... loadlab fleet collect` into a local file while the attack
// runs. Nothing of loadlab's runs in the cluster but the pods.
type Kube struct {
	Kubectl []string      // the kubectl command and its global flags, e.g. kubectl --context lab
	Job     Job           // the Job to apply (Job.PVC must be empty: the pods hold their results)
	Dir     string        // where the shard files are written
	Log     io.Writer     // progress lines
	Wait    time.Duration // give up on shards not collected after this
	Poll    time.Duration // how often the pods are listed (default 1 s)
}

// SetupError is a problem found before any pod ran: the cluster cannot be
// reached, the user may not create the objects, or kubectl refused them.
type SetupError struct{ Msg string }

func (e *SetupError) Error() string { return e.Msg }

// completionIndex is the annotation the Job controller gives each pod.
const completionIndex = "batch.kubernetes.io/job-completion-index"

// Run applies the objects, collects every shard and returns the shard
// files that hold results, in shard order. Shards that failed are named in
// the error; the others' files are kept and returned.
func (k Kube) Run(ctx context.Context) ([]string, error) {
	if k.Poll <= 0 {
		k.Poll = time.Second
	}
	if k.Log != nil {
		k.Log = &lockedWriter{w: k.Log}
	}
	if err := k.canCreate(ctx); err != nil {
		return nil, err
	}
	manifest, err := k.Job.Render()
	if err != nil {
		return nil, err
	}
	if _, err := k.kubectl(ctx, manifest, "apply", "-f", "-"); err != nil {
		return nil, &SetupError{Msg: "kubectl apply refused the Job: " + err.Error()}
	}
	k.logf("applied job/%s: %d pods, starting together at %s", k.Job.Name, k.Job.Shards, k.Job.StartAt.UTC().Format(time.RFC3339))
	return k.collectAll(ctx)
}

// canCreate checks that the cluster answers and lets the user create the
// ConfigMap and the Job, before anything is applied.
func (k Kube) canCreate(ctx context.Context) error {
	for _, res := range []string{"configmaps", "jobs.batch"} {
		out, err := k.kubectl(ctx, nil, "auth", "can-i", "create", res)
		answer := strings.TrimSpace(string(out))
		switch {
		case answer == "yes":
		case answer == "no" || strings.HasPrefix(answer, "no "):
			return &SetupError{Msg: fmt.Sprintf("the cluster does not let you create %s%s (kubectl auth can-i create %s: no); ask for a Role that allows it", res, k.inNamespace(), res)}
		case err != nil:
			return &SetupError{Msg: "cannot reach the cluster: " + err.Error()}
		default:
			return &SetupError{Msg: fmt.Sprintf("kubectl auth can-i create %s answered %q", res, answer)}
		}
	}
	return nil
}

func (k Kube) inNamespace() string {
	if k.Job.Namespace == "" {
		return ""
	}
	return " in namespace " + k.Job.Namespace
}

// shard is the collection state of one completion index.
type shard struct {
	pod     string
	started bool
	done    bool
	err     error
}

// collectAll follows the Job's pods until every shard is collected or has
// failed, or Wait has passed.
func (k Kube) collectAll(ctx context.Context) ([]string, error) {
	n := k.Job.Shards
	files := make([]string, n)
	for i := range files {
		files[i] = filepath.Join(k.Dir, fmt.Sprintf("%s-shard-%d.lll", k.Job.Name, i))
	}
	var mu sync.Mutex
	shards := make([]shard, n)
	var wg sync.WaitGroup
	defer wg.Wait()
	giveUp := time.Now().Add(k.Wait)
	var lastPods []corev1.Pod
	for {
		pods, err := k.pods(ctx)
		if err != nil {
			k.logf("listing the pods: %v", err)
		} else {
			lastPods = pods
		}
		mu.Lock()
		for _, p := range pods {
			i, err := strconv.Atoi(p.Annotations[completionIndex])
			if err != nil || i < 0 || i >= n || shards[i].started || shards[i].done {
				continue
			}
			switch p.Status.Phase {
			case corev1.PodRunning:
				shards[i].started, shards[i].pod = true, p.Name
				k.logf("shard %d: pod %s running, collecting its results", i, p.Name)
				wg.Add(1)
				go func() {
					defer wg.Done()
					err := k.collect(ctx, p.Name, files[i])
					mu.Lock()
					shards[i].done, shards[i].err = true, err
					mu.Unlock()
					if err == nil {
						k.logf("shard %d: collected %s", i, files[i])
					}
				}()
			case corev1.PodFailed, corev1.PodSucceeded:
				shards[i].done, shards[i].pod = true, p.Name
				shards[i].err = fmt.Errorf("pod %s %s before its results were collected%s", p.Name, strings.ToLower(string(p.Status.Phase)), why(p))
			}
		}
		left := 0
		for _, s := range shards {
			if !s.done {
				left++
			}
		}
		mu.Unlock()
		if left == 0 {
			break
		}
		if time.Now().After(giveUp) || ctx.Err() != nil {
			mu.Lock()
			for i := range shards {
				if !shards[i].started && !shards[i].done {
					shards[i].done = true
					shards[i].err = fmt.Errorf("no pod ran it within %s%s", k.Wait, pending(lastPods, i))
				}
			}
			mu.Unlock()
			if ctx.Err() != nil {
				break
			}
			// Collections under way end when their pods do.
			wg.Wait()
			break
		}
		if sleep(ctx, k.Poll) != nil {
			continue
		}
	}
	wg.Wait()
	var kept []string
	var failed []string
	for i, s := range shards {
		if st, err := os.Stat(files[i]); err == nil && st.Size() > 0 {
			kept = append(kept, files[i])
		}
		if s.err != nil {
			failed = append(failed, fmt.Sprintf("shard %d: %v", i, s.err))
		}
	}
	if len(failed) > 0 {
		return kept, errors.New(strings.Join(failed, "; "))
	}
	return kept, nil
}

// collect streams one pod's results into file, resuming where it stopped
// when the exec connection breaks (at most three times in a row without
// progress).
func (k Kube) collect(ctx context.Context, pod, file string) error {
	f, err := os.Create(file)
	if err != nil {
		return err
	}
	defer f.Close()
	remote := ResultsFile(k.Job.Name, strconv.Itoa(indexOf(file)))
	var have int64
	failures := 0
	for {
		var stderr bytes.Buffer
		cmd := k.command(ctx, "exec", pod, "-c", "loadlab", "--", "loadlab", "fleet", "collect", "-from", strconv.FormatInt(have, 10), remote)
		cmd.Stdout = f
		cmd.Stderr = &stderr
		err := cmd.Run()
		st, serr := f.Stat()
		if serr != nil {
			return serr
		}
		progressed := st.Size() > have
		have = st.Size()
		if err == nil {
			return nil
		}
		if strings.Contains(stderr.String(), "collect: the attack") {
			// The attack itself failed: its file is complete.
			return fmt.Errorf("pod %s: %s", pod, lastLine(stderr.String()))
		}
		if progressed {
			failures = 0
		} else if failures++; failures >= 3 || ctx.Err() != nil {
			return fmt.Errorf("pod %s: kubectl exec: %v: %s", pod, err, lastLine(stderr.String()))
		}
		k.logf("pod %s: collection cut after %d bytes (%s); resuming", pod, have, lastLine(stderr.String()))
		if sleep(ctx, k.Poll) != nil {
			return ctx.Err()
		}
	}
}

// indexOf reads the completion index back from a local shard file name.
func indexOf(file string) int {
	base := strings.TrimSuffix(filepath.Base(file), ".lll")
	i, _ := strconv.Atoi(base[strings.LastIndex(base, "-")+1:])
	return i
}

// pods lists the Job's pods.
func (k Kube) pods(ctx context.Context) ([]corev1.Pod, error) {
	out, err := k.kubectl(ctx, nil, "get", "pods", "-l", "batch.kubernetes.io/job-name="+k.Job.Name, "-o", "json")
	if err != nil {
		return nil, err
	}
	var list corev1.PodList
	if err := json.Unmarshal(out, &list); err != nil {
		return nil, fmt.Errorf("kubectl get pods: %v", err)
	}
	sort.Slice(list.Items, func(a, b int) bool { return list.Items[a].Name < list.Items[b].Name })
	return list.Items, nil
}

// why is a failed pod's reason, from its status or its container's.
func why(p corev1.Pod) string {
	for _, c := range p.Status.ContainerStatuses {
		if t := c.State.Terminated; t != nil {
			msg := fmt.Sprintf(": container exited %d", t.ExitCode)
			if t.Reason != "" {
				msg += " (" + t.Reason + ")"
			}
			if t.Message != "" {
				msg += ": " + lastLine(t.Message)
			}
			return msg
		}
	}
	if p.Status.Reason != "" {
		return ": " + p.Status.Reason + " " + p.Status.Message
	}
	return ""
}

// pending says what kept shard i's pod from running, when it exists.
func pending(pods []corev1.Pod, i int) string {
	for _, p := range pods {
		if p.Annotations[completionIndex] != strconv.Itoa(i) {
			continue
		}
		for _, c := range p.Status.Conditions {
			if c.Status != corev1.ConditionTrue && c.Message != "" {
				return fmt.Sprintf(" (pod %s %s: %s)", p.Name, p.Status.Phase, c.Message)
			}
		}
		for _, c := range p.Status.ContainerStatuses {
			if w := c.State.Waiting; w != nil {
				return fmt.Sprintf(" (pod %s waiting: %s %s)", p.Name, w.Reason, w.Message)
			}
		}
		return fmt.Sprintf(" (pod %s %s)", p.Name, p.Status.Phase)
	}
	return " (the Job controller made no pod for it)"
}

// kubectl runs kubectl with the Job's namespace and returns its stdout; an
// error carries kubectl's last line of stderr.
func (k Kube) kubectl(ctx context.Context, stdin []byte, args ...string) ([]byte, error) {
	cmd := k.command(ctx, args...)
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		if msg := lastLine(stderr.String()); msg != "" {
			return out, fmt.Errorf("%s", msg)
		}
		return out, err
	}
	return out, nil
}

func (k Kube) command(ctx context.Context, args ...string) *exec.Cmd {
	kc := k.Kubectl
	if len(kc) == 0 {
		kc = []string{"kubectl"}
	}
	full := append(append([]string{}, kc[1:]...), args...)
	if k.Job.Namespace != "" {
		full = append(append(append([]string{}, kc[1:]...), "-n", k.Job.Namespace), args...)
	}
	return exec.CommandContext(ctx, kc[0], full...)
}

func (k Kube) logf(format string, a ...any) {
	if k.Log != nil {
		fmt.Fprintf(k.Log, "loadlab fleet: "+format+"\n", a...)
	}
}

func lastLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		s = s[i+1:]
	}
	return s
}

// lockedWriter serialises the shards' progress lines.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}
