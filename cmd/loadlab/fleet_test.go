package main

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	"sigs.k8s.io/yaml"

	"github.com/loadlab/loadlab/internal/fleet"
)

// TestFleetK8sUpToTheCluster renders the Indexed Job with `loadlab fleet
// k8s`, decodes it strictly into the official types, then does what the
// cluster would: runs each pod's command (its completion index expanded
// as the kubelet expands $(JOB_COMPLETION_INDEX)) with the targets the
// ConfigMap holds, in this test against a loopback server, collects each
// pod's results with `loadlab fleet collect` while the attack writes them
// (the pod holds its file until then), and reports the files as one run.
// TestFleetKube (make test-kube) does the same through a real API server
// and Job controller.
func TestFleetK8sUpToTheCluster(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	defer srv.Close()
	dir := t.TempDir()
	targets := filepath.Join(dir, "targets.txt")
	os.WriteFile(targets, []byte("GET "+srv.URL+"/x\n"), 0o644)
	code, out, stderr := runCLI(t, nil, "fleet", "k8s", "-shards", "3", "-image", "loadlab:test", "-targets", targets, "-start-at", "+2s", "--", "-rate", "60/s", "-duration", "2s")
	if code != 0 {
		t.Fatalf("fleet k8s: exit %d: %s", code, stderr)
	}
	docs := strings.Split(out, "\n---\n")
	var job batchv1.Job
	if err := yaml.UnmarshalStrict([]byte(docs[len(docs)-1]), &job); err != nil {
		t.Fatal(err)
	}
	files := runPods(t, &job, dir)
	code, rep, stderr := runCLI(t, nil, append([]string{"report"}, files...)...)
	if code != 0 || !strings.Contains(rep, "120, 120, 0 (every scheduled request recorded once)") || !strings.Contains(rep, "local-2.lll") {
		t.Fatalf("report of the pods' files: exit %d %s\n%s", code, stderr, rep)
	}
}

// runPods does what the cluster would with the rendered Job: runs each
// pod's command (its completion index expanded as the kubelet expands
// $(JOB_COMPLETION_INDEX), /etc/loadlab and /results mapped to dir, where
// the test put the ConfigMap's files) and collects each pod's results with
// `loadlab fleet collect` while the attack writes them; it returns the
// collected files.
func runPods(t *testing.T, job *batchv1.Job, dir string) []string {
	t.Helper()
	var wg sync.WaitGroup
	var files []string
	for i := 0; i < int(*job.Spec.Completions); i++ {
		cmd := fleet.Command(job, i)
		for k, a := range cmd {
			a = strings.Replace(a, "/etc/loadlab", dir, 1)
			cmd[k] = strings.Replace(a, "/results", dir, 1)
		}
		if cmd[3] != "-hold" {
			t.Fatalf("pod %d runs %v, want its results held for the collector", i, cmd)
		}
		wg.Add(2)
		go func() {
			defer wg.Done()
			if code, _, stderr := runCLI(t, nil, cmd[1:]...); code != 0 {
				t.Errorf("pod %d (%v): exit %d: %s", i, cmd, code, stderr)
			}
		}()
		// The collector, as kubectl exec runs it in the pod: the results
		// stream out while the attack writes them.
		local := filepath.Join(dir, fmt.Sprintf("local-%d.lll", i))
		files = append(files, local)
		go func() {
			defer wg.Done()
			code, out, stderr := runCLI(t, nil, "fleet", "collect", cmd[len(cmd)-2])
			if code != 0 {
				t.Errorf("collect %d: exit %d: %s", i, code, stderr)
			}
			os.WriteFile(local, []byte(out), 0o644)
		}()
	}
	wg.Wait()
	return files
}

func TestFleetBadInput(t *testing.T) {
	dir := t.TempDir()
	targets := filepath.Join(dir, "t.txt")
	os.WriteFile(targets, []byte("GET http://127.0.0.1:9/\n"), 0o644)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"fleet"}, "want loadlab fleet k8s"},
		{[]string{"fleet", "k8s", "-image", "x", "-targets", targets}, "-shards: want 1 or more"},
		{[]string{"fleet", "k8s", "-shards", "2", "-targets", targets}, "-image:"},
		{[]string{"fleet", "k8s", "-shards", "2", "-image", "x", "-targets", "/nope"}, "-targets:"},
		{[]string{"fleet", "k8s", "-shards", "2", "-image", "x", "-targets", targets, "-cpu", "lots"}, "-cpu:"},
		{[]string{"fleet", "k8s", "-shards", "2", "-image", "x", "-targets", targets, "--", "-rate", "fast"}, "-rate"},
	} {
		code, _, stderr := runCLI(t, nil, c.args...)
		if code != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, %q; want exit 2 and %q", c.args, code, stderr, c.want)
		}
	}
}
