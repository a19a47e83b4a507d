package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"

	"github.com/loadlab/loadlab/internal/flow"
)

// fleetFlow is a 2-step flow with a data file and a body file; mal's
// password is wrong, so one session in three fails its login's check.
const fleetFlow = `name: fleet-journey
data: users.csv
steps:
  - name: login
    request: {method: POST, url: URL/login, body_file: login.json}
    capture:
      - {var: token, json: "$.token"}
    check:
      - {status: 200}
  - name: home
    request: {url: "URL/home", headers: {Authorization: "Bearer {{token}}"}}
    check:
      - {status: 200}
`

// writeFleetFlow writes the flow, its data file and its body file into a
// folder of their own and returns the flow file.
func writeFleetFlow(t *testing.T, url string) string {
	t.Helper()
	dir := t.TempDir()
	writeFlowFiles(t, dir, url, map[string]string{"flow.yaml": fleetFlow, "users.csv": "user,password\nann,secret\nben,secret\nmal,wrong\n",
		"login.json": `{"user":"{{user}}","password":"{{password}}"}`})
	return filepath.Join(dir, "flow.yaml")
}

// checkFleetFlowReport checks the merged report of 20 sessions (seqs 0 to
// 19 over the shards): every session counted once, mal's 6 (seq 2, 5, ...
// 17) failing at login, the others browsing home.
func checkFleetFlowReport(t *testing.T, rep string) {
	t.Helper()
	squashed := regexp.MustCompile(` +`).ReplaceAllString(rep, " ")
	for _, want := range []string{
		"Requests [total, rate, throughput] 34, ",
		"Sessions [started, completed, failed, interrupted, dropped] 20, 14, 6, 0, 0",
		"(every scheduled session recorded once)",
		"✗ login: status 200 14 6 ",
		"✓ home: status 200 14 0 100.00%",
	} {
		if !strings.Contains(squashed, want) {
			t.Errorf("merged report lacks %q:\n%s", want, rep)
		}
	}
}

// TestFleetSSHFlow runs a flow over a real sshd on two "hosts" (see
// TestFleetSSH): the fleet sends the self-contained flow on each host's
// stdin (the hosts have neither the data file nor the body file), each
// runs its shard of the sessions against a real loopback site, and the
// merged report counts every session once.
func TestFleetSSHFlow(t *testing.T) {
	t.Parallel() // its own sshd and servers, like TestFleetSSH
	if testing.Short() {
		t.Skip("starts sshd and runs 2 s of load")
	}
	opts := startSSHD(t)
	site, homes := loginSite(t)
	file := writeFleetFlow(t, site.URL)
	dir := t.TempDir()
	remote := "cd / && env " + asBinaryEnv + "=1 GORACE='" + os.Getenv("GORACE") + "' " + os.Args[0]
	code, rep, stderr := runCLI(t, nil, "fleet", "ssh", "-hosts", "127.0.0.1,127.0.0.2", "-ssh", strings.Join(opts, " "), "-remote", remote,
		"-flow", file, "-out", filepath.Join(dir, "run"), "-start-at", "+5s", "--", "-rate", "10/s", "-duration", "2s", "-catch-up", "1m")
	if code != 0 {
		t.Fatalf("fleet ssh -flow: exit %d\n%s\n%s", code, rep, stderr)
	}
	checkFleetFlowReport(t, rep)
	if homes.Load() != 14 {
		t.Errorf("/home answered %d sessions, want 14", homes.Load())
	}
	for _, want := range []string{"shard-1-of-2.lll", "shard-2-of-2.lll", "127.0.0.1", "127.0.0.2"} {
		if !strings.Contains(rep+stderr, want) {
			t.Errorf("fleet output lacks %q:\n%s\n%s", want, rep, stderr)
		}
	}
}

// TestFleetK8sFlow renders the Job for a flow: the ConfigMap holds the
// self-contained flow as flow.yaml and the pods' command runs it; the
// pods' commands then run (as in TestFleetK8sUpToTheCluster) with only the
// ConfigMap's file, and the merged report counts every session once.
func TestFleetK8sFlow(t *testing.T) {
	site, _ := loginSite(t)
	file := writeFleetFlow(t, site.URL)
	code, out, stderr := runCLI(t, nil, "fleet", "k8s", "-shards", "2", "-image", "loadlab:test", "-flow", file, "-start-at", "+2s", "--", "-rate", "10/s", "-duration", "2s")
	if code != 0 {
		t.Fatalf("fleet k8s -flow: exit %d: %s", code, stderr)
	}
	docs := strings.Split(out, "\n---\n")
	var cm corev1.ConfigMap
	var job batchv1.Job
	if err := yaml.UnmarshalStrict([]byte(docs[0]), &cm); err != nil {
		t.Fatal(err)
	}
	if err := yaml.UnmarshalStrict([]byte(docs[len(docs)-1]), &job); err != nil {
		t.Fatal(err)
	}
	want, err := flow.SelfContained(file)
	if err != nil {
		t.Fatal(err)
	}
	if len(cm.Data) != 1 || cm.Data["flow.yaml"] != string(want) {
		t.Fatalf("ConfigMap data %q, want flow.yaml: the self-contained flow\n%s", cm.Data, want)
	}
	args := strings.Join(job.Spec.Template.Spec.Containers[0].Args, " ")
	if !strings.Contains(args, " -flow /etc/loadlab/flow.yaml ") || strings.Contains(args, "-targets") {
		t.Fatalf("the pods run %s, want -flow /etc/loadlab/flow.yaml and no -targets", args)
	}
	// The pods see the ConfigMap's file only.
	pods := t.TempDir()
	if err := os.WriteFile(filepath.Join(pods, "flow.yaml"), []byte(cm.Data["flow.yaml"]), 0o644); err != nil {
		t.Fatal(err)
	}
	files := runPods(t, &job, pods)
	code, rep, stderr := runCLI(t, nil, append([]string{"report"}, files...)...)
	if code != 0 {
		t.Fatalf("report of the pods' files: exit %d %s", code, stderr)
	}
	checkFleetFlowReport(t, rep)
}

// attack -flow - reads the flow from stdin; the fleets take exactly one of
// -targets and -flow; a bad flow is one line naming it, exit 2.
func TestFleetFlowBadInput(t *testing.T) {
	site, homes := loginSite(t)
	file := writeFleetFlow(t, site.URL)
	sc, err := flow.SelfContained(file)
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "r.lll")
	if code, _, stderr := runCLI(t, sc, "attack", "-flow", "-", "-rate", "10/s", "-duration", "300ms", "-output", out); code != 0 {
		t.Fatalf("attack -flow -: exit %d: %s", code, stderr)
	}
	if homes.Load() != 2 {
		t.Errorf("attack -flow - (3 sessions, 1 with the wrong password): /home answered %d, want 2", homes.Load())
	}
	bad := filepath.Join(filepath.Dir(file), "bad.yaml")
	os.WriteFile(bad, []byte("steps:\n  - request: {url: http://127.0.0.1:1/, body_file: missing.json}\n"), 0o644)
	targets := filepath.Join(filepath.Dir(file), "t.txt")
	os.WriteFile(targets, []byte("GET http://127.0.0.1:9/\n"), 0o644)
	for _, c := range []struct {
		stdin string
		args  []string
		want  string
	}{
		{"", []string{"fleet", "k8s", "-shards", "2", "-image", "x", "-targets", targets, "-flow", file}, "-flow: give -targets or -flow, not both"},
		{"", []string{"fleet", "k8s", "-shards", "2", "-image", "x"}, "-targets: give the targets file or a -flow file"},
		{"", []string{"fleet", "ssh", "-hosts", "127.0.0.1"}, "-targets: give the targets file or a -flow file"},
		{"", []string{"fleet", "ssh", "-hosts", "127.0.0.1", "-targets", targets, "-flow", file}, "-flow: give -targets or -flow, not both"},
		{"", []string{"fleet", "k8s", "-shards", "2", "-image", "x", "-flow", bad}, bad + ":2: steps[0].request.body_file: cannot read missing.json"},
		{"", []string{"fleet", "k8s", "-shards", "2", "-image", "x", "-flow", file, "--", "-users", "0"}, "-users"},
		{"steps:\n  - request: {url: http://127.0.0.1:1/, verb: GET}\n", []string{"attack", "-flow", "-", "-rate", "1/s", "-duration", "1s"},
			"stdin:2: steps[0].request.verb: unknown field"},
		{"data:\n  - {user: ann}\n  - {user: [ben]}\nsteps:\n  - request: {url: http://127.0.0.1:1/}\n", []string{"attack", "-flow", "/dev/stdin", "-rate", "1/s", "-duration", "1s"},
			"stdin:3: data[1].user: want a string, number or boolean"},
	} {
		code, _, stderr := runCLI(t, []byte(c.stdin), c.args...)
		if code != 2 || !strings.Contains(stderr, c.want) || strings.Count(strings.TrimSpace(stderr), "\n") != 0 {
			t.Errorf("%v: exit %d, %q; want exit 2 and one line with %q", c.args, code, stderr, c.want)
		}
	}
}
