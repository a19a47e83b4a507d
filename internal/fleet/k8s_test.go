package fleet

import (
	"bytes"
	"strings"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"
)

func testJob() Job {
	return Job{Name: "flood", Namespace: "load", Image: "registry.example/loadlab:1", Shards: 4,
		StartAt: time.Date(2026, 11, 24, 15, 0, 0, 0, time.UTC), Targets: []byte("GET http://api.example/search?q={{seq}}\n"),
		Args: []string{"-rate", "40000/s", "-duration", "5m"}, PVC: "loadlab-results", CPU: "2", Memory: "1Gi", Deadline: 20 * time.Minute}
}

// The rendered manifest decodes strictly (unknown fields are errors) into
// the official Kubernetes types, as an Indexed Job whose completion index
// is the shard.
func TestRenderDecodesStrictlyIntoIndexedJob(t *testing.T) {
	y, err := testJob().Render()
	if err != nil {
		t.Fatal(err)
	}
	docs := strings.Split(string(y), "\n---\n")
	if len(docs) != 2 {
		t.Fatalf("%d documents, want a ConfigMap and a Job", len(docs))
	}
	var cm corev1.ConfigMap
	if err := yaml.UnmarshalStrict([]byte(docs[0]), &cm); err != nil {
		t.Fatalf("ConfigMap: %v", err)
	}
	var job batchv1.Job
	if err := yaml.UnmarshalStrict([]byte(docs[1]), &job); err != nil {
		t.Fatalf("Job: %v", err)
	}
	if cm.Kind != "ConfigMap" || cm.Name != "flood-targets" || !strings.Contains(cm.Data["targets.txt"], "{{seq}}") {
		t.Errorf("ConfigMap %+v", cm)
	}
	s := job.Spec
	if job.Kind != "Job" || job.APIVersion != "batch/v1" || job.Namespace != "load" || *s.CompletionMode != batchv1.IndexedCompletion ||
		*s.Completions != 4 || *s.Parallelism != 4 || *s.BackoffLimit != 0 || *s.ActiveDeadlineSeconds != 1200 {
		t.Errorf("Job spec %+v", s)
	}
	pod := s.Template.Spec
	c := pod.Containers[0]
	if pod.RestartPolicy != corev1.RestartPolicyNever || c.Image != "registry.example/loadlab:1" || c.Resources.Limits.Cpu().String() != "2" {
		t.Errorf("pod %+v", pod)
	}
	if c.Env[0].Name != "JOB_COMPLETION_INDEX" || c.Env[0].ValueFrom.FieldRef.FieldPath != "metadata.annotations['batch.kubernetes.io/job-completion-index']" {
		t.Errorf("env %+v", c.Env)
	}
	args := strings.Join(c.Args, " ")
	for _, want := range []string{"fleet pod -- -rate 40000/s -duration 5m", "-shard-index $(JOB_COMPLETION_INDEX) -shards 4", "-start-at 2026-11-24T15:00:00Z",
		"-targets /etc/loadlab/targets.txt", "-output /results/flood-shard-$(JOB_COMPLETION_INDEX).lll"} {
		if !strings.Contains(args, want) {
			t.Errorf("args %q lack %q", args, want)
		}
	}
	if pod.Volumes[1].PersistentVolumeClaim.ClaimName != "loadlab-results" || pod.Volumes[0].ConfigMap.Name != "flood-targets" {
		t.Errorf("volumes %+v", pod.Volumes)
	}
	// As the kubelet would expand it for the pod of index 2.
	cmd := strings.Join(Command(&job, 2), " ")
	if !strings.Contains(cmd, "-shard-index 2 -shards 4") || !strings.Contains(cmd, "flood-shard-2.lll") {
		t.Errorf("pod 2 runs %q", cmd)
	}
	if !bytes.HasPrefix(y, []byte("# loadlab: one attack split into 4 shards")) {
		t.Errorf("the manifest does not say what it is")
	}
}

// Without a claim, each pod keeps its results in its own volume and waits
// for the collector; the pods are spread over nodes.
func TestRenderHoldsResultsInThePod(t *testing.T) {
	j := testJob()
	j.PVC, j.Hold = "", 10*time.Minute
	y, err := j.Render()
	if err != nil {
		t.Fatal(err)
	}
	docs := strings.Split(string(y), "\n---\n")
	var job batchv1.Job
	if err := yaml.UnmarshalStrict([]byte(docs[1]), &job); err != nil {
		t.Fatal(err)
	}
	pod := job.Spec.Template.Spec
	if pod.Volumes[1].EmptyDir == nil || pod.Volumes[1].PersistentVolumeClaim != nil {
		t.Errorf("results volume %+v, want an emptyDir", pod.Volumes[1])
	}
	if args := strings.Join(pod.Containers[0].Args, " "); !strings.HasPrefix(args, "fleet pod -hold 10m0s -- -rate 40000/s") {
		t.Errorf("args %q", args)
	}
	aa := pod.Affinity.PodAntiAffinity.PreferredDuringSchedulingIgnoredDuringExecution
	if len(aa) != 1 || aa[0].PodAffinityTerm.TopologyKey != "kubernetes.io/hostname" || aa[0].PodAffinityTerm.LabelSelector.MatchLabels["loadlab/attack"] != "flood" {
		t.Errorf("anti-affinity %+v", aa)
	}
	if !strings.Contains(string(y), "loadlab fleet collect /results/flood-shard-I.lll") {
		t.Errorf("the manifest does not say how to collect:\n%s", y)
	}
}
