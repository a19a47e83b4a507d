package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/loadlab/loadlab/internal/badinput"
	"github.com/loadlab/loadlab/internal/fleet"
)

func init() {
	register(command{
		name:    "fleet",
		summary: "split one attack between several generators: a Kubernetes Indexed Job (one shard per pod) or hosts over ssh, merged into one report",
		order:   75,
		run:     runFleet,
	})
}

// fleetSSHExamples and fleetK8sExamples are each engine's examples; its
// own -help shows its examples first.
const fleetSSHExamples = `  # Three hosts over ssh, each a third of 30,000 requests/s for 5 minutes:
  # each host runs one shard and streams its results back into run-7/;
  # the merged report (one run, with a per-shard table) is printed at the end
  loadlab fleet ssh -hosts gen1,gen2,gen3 -ssh "-i ~/.ssh/load" -targets targets.txt \
    -out run-7 -- -rate 30000/s -duration 5m

  # loadlab is not on the hosts' PATH: name it
  loadlab fleet ssh -hosts gen1,gen2 -remote /opt/loadlab/bin/loadlab -targets targets.txt \
    -- -rate 10000/s -duration 1m

  # A flow (user journey) instead of targets: each host runs its share of the
  # sessions; the flow goes with its data rows and bodies inline
  loadlab fleet ssh -hosts gen1,gen2 -flow journey.yaml -- -rate 100/s -duration 1m

Each host runs loadlab attack -shard i/n -start-at T -shard-host HOST with the
targets (or the flow, as -flow -) on its stdin; docs/distributed.md has the contract and the clocks to
check.`

const fleetK8sExamples = `  # Four pods, each a quarter of 40,000 requests/s for 5 minutes, started
  # together two minutes from now: kubectl (your context) applies the Job,
  # each pod's results stream back into run-7/, and the merged report is
  # printed when every shard is in
  loadlab fleet k8s -apply -shards 4 -image registry.example/loadlab:1 -targets targets.txt \
    -cpu 2 -memory 1Gi -out run-7 -- -rate 40000/s -duration 5m

  # Only the manifest (no cluster needed), results to a ReadWriteMany claim
  loadlab fleet k8s -shards 4 -image registry.example/loadlab:1 -targets targets.txt \
    -pvc loadlab-results -- -rate 40000/s -duration 5m > job.yaml

Each pod runs loadlab attack -shard-index $(JOB_COMPLETION_INDEX) -shards N
-start-at T (through loadlab fleet pod, which then holds its results until
loadlab fleet collect has taken them) with the targets (or -flow) from a ConfigMap;
docs/distributed.md has the contract and the clocks to check.`

// fleetUsage is `loadlab fleet -help`: both engines, then where each
// one's flags are.
func fleetUsage(w io.Writer) {
	fmt.Fprintf(w, `Usage: loadlab fleet ssh|k8s [flags] -- [attack flags]

Splits one attack between several generators started together and prints
one merged report at the end.

Engines:
  ssh   each host of -hosts runs one shard over ssh and streams its results back
  k8s   a Kubernetes Indexed Job, one pod per shard: prints the manifest, or
        with -apply runs it through your kubectl and streams the results back

Flags:
  each engine has its own: 'loadlab fleet ssh -help', 'loadlab fleet k8s -help'

Examples:
%s

%s
`, fleetSSHExamples, fleetK8sExamples)
}

func runFleet(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) error {
	if len(args) > 0 && (args[0] == "-h" || args[0] == "-help" || args[0] == "--help") {
		fleetUsage(stderr) // standard output when help is asked for (see runMain)
		return flag.ErrHelp
	}
	if len(args) > 0 {
		switch args[0] {
		case "ssh":
			return runFleetSSH(ctx, args[1:], stdout, stderr)
		case "pod":
			return runFleetPod(ctx, args[1:], stdout, stderr)
		case "collect":
			return runFleetCollect(ctx, args[1:], stdout, stderr)
		}
	}
	if len(args) == 0 || args[0] != "k8s" {
		return badinput.Errorf("want loadlab fleet k8s|ssh [flags] -- [attack flags] (the engine: a Kubernetes Indexed Job, or hosts over ssh; pod and collect run inside the Job's pods)")
	}
	fs := newFlagSet("fleet", "k8s [flags] -- [attack flags]", fleetK8sExamples, stderr)
	shards := fs.Int("shards", 0, "`number` of pods, one shard of the schedule each (required)")
	image := fs.String("image", "", "container `image` with loadlab on its PATH (required)")
	var input fleetInput
	input.register(fs, "shipped to the pods in a ConfigMap")
	pvc := fs.String("pvc", "", "ReadWriteMany persistent volume `claim` the pods write their results to (default: each pod keeps its file until it is collected)")
	hold := fs.Duration("hold", fleet.DefaultHold, "without -pvc: how long a pod keeps its results for the collector after its attack")
	apply := fs.Bool("apply", false, "apply the objects with kubectl, stream every pod's results back and print the merged report (default: print the manifest)")
	kubectl := fs.String("kubectl", envOr("LOADLAB_KUBECTL", "kubectl"), "the kubectl `command` and its global flags for -apply, e.g. \"kubectl --context lab\" (env LOADLAB_KUBECTL)")
	out := fs.String("out", "", "with -apply: `folder` for the shard files (default loadlab-fleet-<time>)")
	wait := fs.Duration("wait", time.Hour, "with -apply: give up on shards whose pods have not run or been collected after this")
	var ths listFlag
	fs.Var(&ths, "threshold", "with -apply: "+thresholdUsage)
	name := fs.String("name", "loadlab-attack", "the Job's `name` (the ConfigMap is NAME-targets)")
	namespace := fs.String("namespace", "", "`namespace` of the objects (default: kubectl's)")
	startAt := fs.String("start-at", "+2m", "common start `time`: RFC 3339 or +DURATION from now (leave the pods time to be scheduled)")
	cpu := fs.String("cpu", "", "CPU request and limit per pod, e.g. `2`")
	mem := fs.String("memory", "", "memory request and limit per pod, e.g. `1Gi`")
	deadline := fs.Duration("deadline", 0, "the Job gives up after this `duration` (activeDeadlineSeconds); 0: never")
	if err := parseFlags(fs, args[1:]); err != nil {
		return err
	}
	if _, err := parseThresholds(ths); err != nil {
		return err
	}
	switch {
	case *shards < 1:
		return badinput.Field("-shards", "want 1 or more pods, got %d", *shards)
	case *image == "":
		return badinput.Field("-image", "give the container image that holds loadlab")
	}
	for flag, q := range map[string]string{"-cpu": *cpu, "-memory": *mem} {
		if q != "" {
			if err := fleet.ParseQuantity(q); err != nil {
				return badinput.Field(flag, "%q is not a Kubernetes quantity (e.g. 2, 500m, 1Gi)", q)
			}
		}
	}
	data, isFlow, flowProbe, err := input.read()
	if err != nil {
		return err
	}
	at, err := parseStartAt(*startAt, time.Now())
	if err != nil {
		return err
	}
	// The attack's flags are checked now, as the pods would read them.
	probe := append(append([]string{"-shard-index", "0", "-shards", fmt.Sprint(*shards), "-output", os.DevNull}, fs.Args()...), flowProbe...)
	if err := checkAttackFlags(probe); err != nil {
		return err
	}
	if *hold <= 0 {
		return badinput.Field("-hold", "want a positive duration, got %s", *hold)
	}
	job := fleet.Job{Name: *name, Namespace: *namespace, Image: *image, Shards: *shards, StartAt: at, Targets: data, Flow: isFlow,
		Args: fs.Args(), PVC: *pvc, Hold: *hold, CPU: *cpu, Memory: *mem, Deadline: *deadline}
	if !*apply {
		y, err := job.Render()
		if err != nil {
			return err
		}
		_, err = stdout.Write(y)
		return err
	}
	if *pvc != "" {
		return badinput.Field("-pvc", "-apply collects the results from the pods themselves; leave -pvc out (or render with -pvc and copy the files from the claim)")
	}
	kc := strings.Fields(*kubectl)
	if len(kc) == 0 {
		return badinput.Field("-kubectl", "give the kubectl command")
	}
	dir, err := fleetDir(*out)
	if err != nil {
		return err
	}
	files, runErr := fleet.Kube{Kubectl: kc, Job: job, Dir: dir, Log: stderr, Wait: *wait}.Run(ctx)
	var setup *fleet.SetupError
	if errors.As(runErr, &setup) {
		return badinput.Errorf("%s", setup.Msg)
	}
	return fleetReport(ctx, files, ths, runErr, stdout, stderr)
}

// fleetDir makes the folder the shard files go to.
func fleetDir(out string) (string, error) {
	dir := out
	if dir == "" {
		dir = "loadlab-fleet-" + time.Now().Format("20060102-150405")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", badinput.Field("-out", "%v", err)
	}
	return dir, nil
}

// fleetReport prints the merged report of the shard files an engine brought
// back; a failed shard is named (exit 1) and the others are reported.
func fleetReport(ctx context.Context, files []string, thresholds []string, runErr error, stdout, stderr io.Writer) error {
	if runErr != nil {
		fmt.Fprintf(stderr, "loadlab fleet: %v\n", runErr)
	}
	for _, f := range files {
		fmt.Fprintln(stderr, "loadlab fleet: wrote", f)
	}
	if len(files) > 0 {
		var args []string
		for _, t := range thresholds {
			args = append(args, "-threshold", t)
		}
		if err := runReport(ctx, append(args, files...), nil, stdout, stderr); err != nil && runErr == nil {
			return err
		} else if err != nil {
			fmt.Fprintf(stderr, "loadlab fleet: %v\n", err)
		}
	}
	if runErr != nil {
		return exitError{code: 1, msg: "a shard failed: " + runErr.Error()}
	}
	return nil
}

func envOr(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}

func runFleetSSH(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("fleet", "ssh [flags] -- [attack flags]", fleetSSHExamples, stderr)
	hosts := fs.String("hosts", "", "comma-separated ssh `destinations` ([user@]host), one shard each (required)")
	sshOpts := fs.String("ssh", "", "extra ssh `options`, e.g. \"-p 2222 -i ~/.ssh/load\"")
	remote := fs.String("remote", "loadlab", "the loadlab `command` on the hosts")
	var input fleetInput
	input.register(fs, "sent to every host on its stdin")
	out := fs.String("out", "", "`folder` for the shard files (default loadlab-fleet-<time>)")
	startAt := fs.String("start-at", "+10s", "common start `time`: RFC 3339, or +DURATION from when every host has answered")
	var ths listFlag
	fs.Var(&ths, "threshold", thresholdUsage)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if _, err := parseThresholds(ths); err != nil {
		return err
	}
	var hs []string
	for _, h := range strings.Split(*hosts, ",") {
		if h = strings.TrimSpace(h); h != "" {
			hs = append(hs, h)
		}
	}
	if len(hs) == 0 {
		return badinput.Field("-hosts", "give the hosts to run the shards on, e.g. gen1,gen2")
	}
	data, isFlow, flowProbe, err := input.read()
	if err != nil {
		return err
	}
	at, err := parseStartAt(*startAt, time.Now())
	if err != nil {
		return err
	}
	probe := append(append([]string{"-shard", fmt.Sprintf("1/%d", len(hs)), "-output", os.DevNull}, fs.Args()...), flowProbe...)
	if err := checkAttackFlags(probe); err != nil {
		return err
	}
	engine := fleet.SSH{Hosts: hs, SSHArgs: strings.Fields(*sshOpts), Remote: *remote, Targets: data, Flow: isFlow, Args: fs.Args(),
		StartAt: at, Log: stderr}
	if err := engine.Preflight(ctx); err != nil {
		return badinput.Errorf("%v", err)
	}
	if strings.HasPrefix(*startAt, "+") {
		// A relative start counts from when every host is known to answer.
		if engine.StartAt, err = parseStartAt(*startAt, time.Now()); err != nil {
			return err
		}
		at = engine.StartAt
	}
	if time.Until(at) <= 0 {
		return badinput.Field("-start-at", "%s had passed by the time every host answered: give a later time, or a relative one (+30s)", at.UTC().Format(time.RFC3339))
	}
	if engine.Dir, err = fleetDir(*out); err != nil {
		return err
	}
	fmt.Fprintf(stderr, "loadlab fleet: %d shards on %s, starting at %s\n", len(hs), strings.Join(hs, ", "), at.UTC().Format(time.RFC3339))
	files, runErr := engine.Run(ctx)
	return fleetReport(ctx, files, ths, runErr, stdout, stderr)
}
