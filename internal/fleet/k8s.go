// Package fleet prepares one attack split between several generators on
// engines teams already run, with no coordinator of loadlab's own: for
// Kubernetes, an Indexed Job whose completion index is the shard (see
// docs/distributed.md). Every pod runs `loadlab attack -shard-index
// $(JOB_COMPLETION_INDEX) -shards N -start-at T` with the same targets,
// schedule and start instant, and writes its shard's results to a shared
// volume; `loadlab report` of the files is the whole attack.
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
	Args      []string      // the attack's own flags (-rate, -duration, ...)
	PVC       string        // ReadWriteMany claim the results go to
	CPU       string        // CPU request and limit per pod, e.g. "2"
	Memory    string        // memory request and limit per pod, e.g. "1Gi"
	Deadline  time.Duration // activeDeadlineSeconds: the Job gives up after this
}

// Paths inside the pods.
const (
	targetsDir = "/etc/loadlab"
	resultsDir = "/results"
)

// Objects builds the ConfigMap holding the targets and the Indexed Job.
func (j Job) Objects() (*corev1.ConfigMap, *batchv1.Job) {
	meta := func(name string) metav1.ObjectMeta {
		return metav1.ObjectMeta{Name: name, Namespace: j.Namespace, Labels: map[string]string{"app.kubernetes.io/name": "loadlab", "loadlab/attack": j.Name}}
	}
	cm := &corev1.ConfigMap{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"}, ObjectMeta: meta(j.Name + "-targets"),
		Data: map[string]string{"targets.txt": string(j.Targets)}}
	n := int32(j.Shards)
	indexed := batchv1.IndexedCompletion
	zero := int32(0)
	args := append([]string{"attack"}, j.Args...)
	args = append(args,
		"-targets", targetsDir+"/targets.txt",
		"-shard-index", "$(JOB_COMPLETION_INDEX)", "-shards", fmt.Sprint(j.Shards),
		"-start-at", j.StartAt.UTC().Format(time.RFC3339Nano),
		"-output", resultsDir+"/"+j.Name+"-shard-$(JOB_COMPLETION_INDEX).lll",
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
	job := &batchv1.Job{TypeMeta: metav1.TypeMeta{APIVersion: "batch/v1", Kind: "Job"}, ObjectMeta: meta(j.Name),
		Spec: batchv1.JobSpec{
			CompletionMode: &indexed, Completions: &n, Parallelism: &n, BackoffLimit: &zero,
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app.kubernetes.io/name": "loadlab", "loadlab/attack": j.Name}},
				Spec: corev1.PodSpec{
					RestartPolicy: corev1.RestartPolicyNever,
					Containers:    []corev1.Container{c},
					Volumes: []corev1.Volume{
						{Name: "targets", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: cm.Name}}}},
						{Name: "results", VolumeSource: corev1.VolumeSource{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: j.PVC}}},
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
	fmt.Fprintf(&b, "# kubectl apply -f this; when the Job completes, read the %d files in the claim %q:\n", j.Shards, j.PVC)
	fmt.Fprintf(&b, "#   loadlab report %s-shard-*.lll\n", j.Name)
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
