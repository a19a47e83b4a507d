// Package fleet prepares one attack split between several generators on
// engines teams already run, with no coordinator of loadlab's own: for
// Kubernetes, an Indexed Job whose completion index is the shard, applied
// and collected through the user's kubectl (see docs/distributed.md); over
// ssh, one shard per host streamed back on the connection. Every shard runs
// `loadlab attack -shard-index I -shards N -start-at T` with the same
// targets, schedule and start instant; `loadlab report` of the files is
// the whole attack.
package fleet

import (
	"bytes"
	"fmt"
	"strings"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"
)

// Job describes the Indexed Job to render.
type Job struct {
	Name      string        // Job name; the ConfigMap is Name-targets
	Namespace string        // "" leaves it to kubectl's context
	Image     string        // an image with loadlab on its PATH
	Shards    int           // pods, one shard each
	StartAt   time.Time     // the common start instant
	Targets   []byte        // the targets file, shipped in a ConfigMap
	Flow      bool          // Targets is a self-contained flow (flow.yaml): the pods run attack -flow
	Args      []string      // the attack's own flags (-rate, -duration, ...)
	PVC       string        // ReadWriteMany claim the results go to; "" keeps them in the pod until collected
	Hold      time.Duration // without PVC: how long a pod keeps its file for the collector after the attack
	CPU       string        // CPU request and limit per pod, e.g. "2"
	Memory    string        // memory request and limit per pod, e.g. "1Gi"
	Deadline  time.Duration // activeDeadlineSeconds: the Job gives up after this
}

// Paths inside the pods.
const (
	targetsDir = "/etc/loadlab"
	resultsDir = "/results"
)

// inputFile is the ConfigMap's key and file name of what the pods read.
func (j Job) inputFile() string {
	if j.Flow {
		return "flow.yaml"
	}
	return "targets.txt"
}

// inputFlag is the attack flag that reads inputFile.
func (j Job) inputFlag() string {
	if j.Flow {
		return "-flow"
	}
	return "-targets"
}

// Objects builds the ConfigMap holding the targets and the Indexed Job.
func (j Job) Objects() (*corev1.ConfigMap, *batchv1.Job) {
	meta := func(name string) metav1.ObjectMeta {
		return metav1.ObjectMeta{Name: name, Namespace: j.Namespace, Labels: map[string]string{"app.kubernetes.io/name": "loadlab", "loadlab/attack": j.Name}}
	}
	cm := &corev1.ConfigMap{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"}, ObjectMeta: meta(j.Name + "-targets"),
		Data: map[string]string{j.inputFile(): string(j.Targets)}}
	n := int32(j.Shards)
	indexed := batchv1.IndexedCompletion
	zero := int32(0)
	args := []string{"fleet", "pod"}
	if j.PVC == "" {
		args = append(args, "-hold", j.hold().String())
	}
	args = append(append(args, "--"), j.Args...)
	args = append(args,
		j.inputFlag(), targetsDir+"/"+j.inputFile(),
		"-shard-index", "$(JOB_COMPLETION_INDEX)", "-shards", fmt.Sprint(j.Shards),
		"-start-at", j.StartAt.UTC().Format(time.RFC3339Nano),
		"-output", ResultsFile(j.Name, "$(JOB_COMPLETION_INDEX)"),
		"-quiet")
	c := corev1.Container{
		Name: "loadlab", Image: j.Image, Command: []string{"loadlab"}, Args: args,
		Env: []corev1.EnvVar{{Name: "JOB_COMPLETION_INDEX", ValueFrom: &corev1.EnvVarSource{
			FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.annotations['batch.kubernetes.io/job-completion-index']"}}}},
		VolumeMounts: []corev1.VolumeMount{{Name: "targets", MountPath: targetsDir, ReadOnly: true}, {Name: "results", MountPath: resultsDir}},
	}
	if j.CPU != "" || j.Memory != "" {
		c.Resources = resources(j.CPU, j.Memory)
	}
	results := corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}
	if j.PVC != "" {
		results = corev1.VolumeSource{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: j.PVC}}
	}
	labels := map[string]string{"app.kubernetes.io/name": "loadlab", "loadlab/attack": j.Name}
	job := &batchv1.Job{TypeMeta: metav1.TypeMeta{APIVersion: "batch/v1", Kind: "Job"}, ObjectMeta: meta(j.Name),
		Spec: batchv1.JobSpec{
			CompletionMode: &indexed, Completions: &n, Parallelism: &n, BackoffLimit: &zero,
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: corev1.PodSpec{
					RestartPolicy: corev1.RestartPolicyNever,
					Containers:    []corev1.Container{c},
					Affinity:      spread(labels),
					Volumes: []corev1.Volume{
						{Name: "targets", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: cm.Name}}}},
						{Name: "results", VolumeSource: results},
					},
				},
			},
		}}
	if j.Deadline > 0 {
		s := int64(j.Deadline.Seconds())
		job.Spec.ActiveDeadlineSeconds = &s
	}
	return cm, job
}

// Render writes the objects as one YAML stream.
func (j Job) Render() ([]byte, error) {
	cm, job := j.Objects()
	var b bytes.Buffer
	fmt.Fprintf(&b, "# loadlab: one attack split into %d shards, started together at %s.\n", j.Shards, j.StartAt.UTC().Format(time.RFC3339))
	if j.PVC != "" {
		fmt.Fprintf(&b, "# kubectl apply -f this; when the Job completes, read the %d files in the claim %q:\n", j.Shards, j.PVC)
		fmt.Fprintf(&b, "#   loadlab report %s-shard-*.lll\n", j.Name)
	} else {
		fmt.Fprintf(&b, "# kubectl apply -f this; each pod keeps its results for %s after its attack: collect pod I's with\n", j.hold())
		fmt.Fprintf(&b, "#   kubectl exec POD -c loadlab -- loadlab fleet collect %s > shard-I.lll\n", ResultsFile(j.Name, "I"))
		fmt.Fprintf(&b, "# (loadlab fleet k8s -apply does all of it and prints the merged report)\n")
	}
	for i, o := range []any{cm, job} {
		y, err := yaml.Marshal(o)
		if err != nil {
			return nil, err
		}
		if i > 0 {
			b.WriteString("---\n")
		}
		b.Write(y)
	}
	return b.Bytes(), nil
}

// Command is a pod's command line with its completion index filled in, as
// the kubelet expands $(JOB_COMPLETION_INDEX) in the container's args.
func Command(job *batchv1.Job, index int) []string {
	c := job.Spec.Template.Spec.Containers[0]
	out := append([]string(nil), c.Command...)
	for _, a := range c.Args {
		out = append(out, strings.ReplaceAll(a, "$(JOB_COMPLETION_INDEX)", fmt.Sprint(index)))
	}
	return out
}

// ResultsFile is where the pod of completion index index writes its
// shard's results.
func ResultsFile(name, index string) string {
	return resultsDir + "/" + name + "-shard-" + index + ".lll"
}

// DefaultHold is how long a pod keeps its results for the collector when
// Job.Hold is not set.
const DefaultHold = 30 * time.Minute

func (j Job) hold() time.Duration {
	if j.Hold > 0 {
		return j.Hold
	}
	return DefaultHold
}

// spread asks the scheduler to put the generators on different nodes
// (preferred, not required: a cluster with fewer nodes than pods still
// runs the attack, with generators sharing nodes).
func spread(labels map[string]string) *corev1.Affinity {
	return &corev1.Affinity{PodAntiAffinity: &corev1.PodAntiAffinity{
		PreferredDuringSchedulingIgnoredDuringExecution: []corev1.WeightedPodAffinityTerm{{
			Weight: 100,
			PodAffinityTerm: corev1.PodAffinityTerm{
				LabelSelector: &metav1.LabelSelector{MatchLabels: labels},
				TopologyKey:   "kubernetes.io/hostname",
			},
		}},
	}}
}
