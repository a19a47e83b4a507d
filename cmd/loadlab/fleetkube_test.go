package main

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/loadlab/loadlab/internal/testwait"
)

// TestFleetKube runs `loadlab fleet k8s -apply` against a real Kubernetes
// control plane on loopback: Debian's etcd, kube-apiserver and
// kube-controller-manager (the real Job controller) built from the
// published k8s.io/kubernetes module (test/kube/build.sh), and a real
// kubectl. The fleet checks its permissions, applies the ConfigMap and the
// Indexed Job, the Job controller creates one pod per completion index,
// and the fleet streams each pod's results back and prints the merged
// report; the Job then completes.
//
// Stand-ins, because no kubelet or container runtime runs here: a loop in
// this test plays the kubelet (it runs each pod's container command as a
// process, with the environment its spec resolves to — the completion
// index from the annotation, $(VAR) expanded in the args — and the
// ConfigMap's files where the volume mounts them, then reports the pod
// Running and Succeeded through the API), and `kubectl exec`, which needs a
// kubelet, is run by the same stand-in in the pod's folder; every other
// kubectl call is the real kubectl against the real API server.
func TestFleetKube(t *testing.T) {
	bin := os.Getenv("LOADLAB_KUBE_BIN")
	if bin == "" {
		t.Skip("LOADLAB_KUBE_BIN is not set: `make test-kube` builds the control plane (test/kube/build.sh) and runs this test")
	}
	etcd, err := exec.LookPath("etcd")
	if err != nil {
		t.Fatalf("etcd not found: install Debian's etcd-server")
	}
	dir := t.TempDir()
	cp := startControlPlane(t, etcd, bin, dir)

	srv := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	defer srv.Close()
	targets := filepath.Join(dir, "targets.txt")
	os.WriteFile(targets, []byte("GET "+srv.URL+"/x\n"), 0o644)

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	kubelet := &standinKubelet{cp: cp, dir: filepath.Join(dir, "pods")}
	go kubelet.run(ctx, t)

	kubectl := func(user string) string {
		return fmt.Sprintf("env LOADLAB_TEST_KUBECTL=%s KUBECONFIG=%s %s", filepath.Join(bin, "kubectl")+":"+kubelet.dir, cp.kubeconfig(user), os.Args[0])
	}
	out := filepath.Join(dir, "out")
	code, rep, stderr := runCLI(t, nil, "fleet", "k8s", "-apply", "-kubectl", kubectl("admin"), "-namespace", "load", "-name", "flood",
		"-shards", "3", "-image", "loadlab:test", "-targets", targets, "-start-at", "+6s", "-hold", "2m", "-wait", "90s", "-out", out,
		"--", "-rate", "60/s", "-duration", "2s")
	if code != 0 {
		t.Fatalf("fleet k8s -apply: exit %d\n%s\n%s", code, rep, stderr)
	}
	t.Logf("loadlab fleet k8s -apply:\n%s%s", stderr, rep)
	for _, want := range []string{"120, 120, 0 (every scheduled request recorded once)", "flood-shard-0.lll", "flood-shard-2.lll", "2/3:1"} {
		if !strings.Contains(rep+stderr, want) {
			t.Errorf("fleet output lacks %q:\n%s\n%s", want, rep, stderr)
		}
	}
	// The real Job controller made exactly one pod per index and, once
	// every pod had handed its results over and exited, completed the Job.
	var job batchv1.Job
	testwait.Until(30*time.Second, func() bool {
		cp.getJSON(t, &job, "get", "job", "flood", "-n", "load", "-o", "json")
		return jobComplete(&job)
	})
	if !jobComplete(&job) || job.Status.CompletedIndexes != "0-2" || job.Status.Succeeded != 3 {
		t.Errorf("job status %+v", job.Status)
	}
	if got := kubelet.started(); got != 3 {
		t.Errorf("the Job controller created %d pods, want 3", got)
	}

	// A user the cluster does not let create Jobs: one line, exit 2,
	// nothing applied.
	code, _, stderr = runCLI(t, nil, "fleet", "k8s", "-apply", "-kubectl", kubectl("viewer"), "-namespace", "load", "-name", "denied",
		"-shards", "2", "-image", "loadlab:test", "-targets", targets, "-out", filepath.Join(dir, "denied"), "--", "-rate", "1/s", "-duration", "1s")
	if code != 2 || !strings.Contains(stderr, "does not let you create") || strings.Count(strings.TrimSpace(stderr), "\n") != 0 {
		t.Errorf("no permission: exit %d, %q", code, stderr)
	}
	// A cluster that cannot be reached.
	code, _, stderr = runCLI(t, nil, "fleet", "k8s", "-apply", "-kubectl", kubectl("nowhere"), "-shards", "2", "-image", "loadlab:test",
		"-targets", targets, "-out", filepath.Join(dir, "nowhere"), "--", "-rate", "1/s", "-duration", "1s")
	if code != 2 || !strings.Contains(stderr, "cannot reach the cluster") {
		t.Errorf("unreachable cluster: exit %d, %q", code, stderr)
	}
}

func jobComplete(j *batchv1.Job) bool {
	for _, c := range j.Status.Conditions {
		if c.Type == batchv1.JobComplete && c.Status == corev1.ConditionTrue {
			return true
		}
	}
	return false
}

// controlPlane is etcd + kube-apiserver + kube-controller-manager on
// loopback, with two users: admin (system:masters) and viewer (no rights).
type controlPlane struct {
	bin, dir string
	server   string
}

func freePort(t *testing.T) int {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

func startProcess(t *testing.T, name string, logDir string, argv ...string) {
	t.Helper()
	logf, _ := os.Create(filepath.Join(logDir, name+".log"))
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
		logf.Close()
		if t.Failed() {
			b, _ := os.ReadFile(logf.Name())
			if len(b) > 3000 {
				b = b[len(b)-3000:]
			}
			t.Logf("%s log (end):\n%s", name, b)
		}
	})
}

func startControlPlane(t *testing.T, etcd, bin, dir string) *controlPlane {
	t.Helper()
	client, peer, secure := freePort(t), freePort(t), freePort(t)
	startProcess(t, "etcd", dir, etcd, "--name", "lab", "--data-dir", filepath.Join(dir, "etcd"),
		"--listen-client-urls", fmt.Sprintf("http://127.0.0.1:%d", client), "--advertise-client-urls", fmt.Sprintf("http://127.0.0.1:%d", client),
		"--listen-peer-urls", fmt.Sprintf("http://127.0.0.1:%d", peer), "--initial-advertise-peer-urls", fmt.Sprintf("http://127.0.0.1:%d", peer),
		"--initial-cluster", fmt.Sprintf("lab=http://127.0.0.1:%d", peer))
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	pub, _ := x509.MarshalPKIXPublicKey(&key.PublicKey)
	os.WriteFile(filepath.Join(dir, "sa.key"), pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(key)}), 0o600)
	os.WriteFile(filepath.Join(dir, "sa.pub"), pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: pub}), 0o644)
	os.WriteFile(filepath.Join(dir, "tokens.csv"), []byte("admin-token,admin,1,system:masters\nviewer-token,viewer,2\n"), 0o600)
	startProcess(t, "kube-apiserver", dir, filepath.Join(bin, "kube-apiserver"),
		fmt.Sprintf("--etcd-servers=http://127.0.0.1:%d", client), "--bind-address=127.0.0.1", "--advertise-address=127.0.0.1",
		fmt.Sprintf("--secure-port=%d", secure), "--token-auth-file="+filepath.Join(dir, "tokens.csv"), "--authorization-mode=RBAC",
		"--service-account-issuer=https://kubernetes.default.svc.cluster.local", "--service-account-key-file="+filepath.Join(dir, "sa.pub"),
		"--service-account-signing-key-file="+filepath.Join(dir, "sa.key"), "--service-cluster-ip-range=10.0.0.0/24",
		"--cert-dir="+filepath.Join(dir, "certs"), "--endpoint-reconciler-type=none")
	cp := &controlPlane{bin: bin, dir: dir, server: fmt.Sprintf("https://127.0.0.1:%d", secure)}
	for _, u := range []struct{ name, token, server string }{{"admin", "admin-token", cp.server}, {"viewer", "viewer-token", cp.server},
		{"nowhere", "admin-token", fmt.Sprintf("https://127.0.0.1:%d", freePort(t))}} {
		kc := fmt.Sprintf(`apiVersion: v1
kind: Config
clusters: [{name: lab, cluster: {server: %q, insecure-skip-tls-verify: true}}]
users: [{name: %s, user: {token: %s}}]
contexts: [{name: lab, context: {cluster: lab, user: %s}}]
current-context: lab
`, u.server, u.name, u.token, u.name)
		os.WriteFile(cp.kubeconfig(u.name), []byte(kc), 0o600)
	}
	// Ready within a minute (about 15 s on a quiet 2-core machine).
	hc := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}, Timeout: 2 * time.Second}
	testwait.Eventually(t, 90*time.Second, "kube-apiserver's /readyz", func() bool {
		req, _ := http.NewRequest("GET", cp.server+"/readyz", nil)
		req.Header.Set("Authorization", "Bearer admin-token")
		resp, err := hc.Do(req)
		if err != nil {
			return false
		}
		resp.Body.Close()
		return resp.StatusCode == 200
	})
	startProcess(t, "kube-controller-manager", dir, filepath.Join(bin, "kube-controller-manager"),
		"--kubeconfig="+cp.kubeconfig("admin"), "--controllers=job-controller", "--leader-elect=false", "--secure-port=0")
	cp.kubectl(t, "create", "namespace", "load")
	// No service-account controller runs: create the namespace's default
	// account the pods are admitted with.
	cp.kubectl(t, "create", "serviceaccount", "default", "-n", "load")
	return cp
}

func (cp *controlPlane) kubeconfig(user string) string {
	return filepath.Join(cp.dir, user+".kubeconfig")
}

// kubectl runs the real kubectl as admin.
func (cp *controlPlane) kubectl(t *testing.T, args ...string) []byte {
	t.Helper()
	out, err := cp.run(args...)
	if err != nil {
		t.Fatalf("kubectl %v: %v\n%s", args, err, out)
	}
	return out
}

func (cp *controlPlane) run(args ...string) ([]byte, error) {
	cmd := exec.Command(filepath.Join(cp.bin, "kubectl"), append([]string{"--kubeconfig", cp.kubeconfig("admin")}, args...)...)
	return cmd.CombinedOutput()
}

func (cp *controlPlane) getJSON(t *testing.T, v any, args ...string) {
	t.Helper()
	cmd := exec.Command(filepath.Join(cp.bin, "kubectl"), append([]string{"--kubeconfig", cp.kubeconfig("admin")}, args...)...)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("kubectl %v: %v", args, err)
	}
	if err := json.Unmarshal(out, v); err != nil {
		t.Fatal(err)
	}
}

// standinKubelet plays the kubelet and the container runtime for the pods
// the Job controller creates: each pod's command runs as a process of this
// test binary acting as loadlab, in a folder of its own where the pod's
// volumes are mounted.
type standinKubelet struct {
	cp  *controlPlane
	dir string

	mu   sync.Mutex
	seen map[string]bool
}

func (k *standinKubelet) started() int {
	k.mu.Lock()
	defer k.mu.Unlock()
	return len(k.seen)
}

func (k *standinKubelet) run(ctx context.Context, t *testing.T) {
	k.seen = map[string]bool{}
	os.MkdirAll(k.dir, 0o755)
	tick := time.NewTicker(200 * time.Millisecond) // a kubelet's sync loop
	defer tick.Stop()
	for ; ctx.Err() == nil; <-tick.C {
		var pods corev1.PodList
		out, err := exec.CommandContext(ctx, filepath.Join(k.cp.bin, "kubectl"), "--kubeconfig", k.cp.kubeconfig("admin"),
			"get", "pods", "-A", "-o", "json").Output()
		if err == nil && json.Unmarshal(out, &pods) == nil {
			for _, p := range pods.Items {
				k.mu.Lock()
				fresh := !k.seen[p.Name]
				k.seen[p.Name] = true
				k.mu.Unlock()
				if fresh {
					go k.start(ctx, t, p)
				}
			}
		}
	}
}

// start runs one pod to its end and reports its phases to the API server.
func (k *standinKubelet) start(ctx context.Context, t *testing.T, p corev1.Pod) {
	sandbox := filepath.Join(k.dir, p.Name)
	mounts := map[string]string{}
	for _, v := range p.Spec.Volumes {
		host := filepath.Join(sandbox, "volumes", v.Name)
		os.MkdirAll(host, 0o755)
		if v.ConfigMap != nil {
			var cm corev1.ConfigMap
			k.cp.getJSON(t, &cm, "get", "configmap", v.ConfigMap.Name, "-n", p.Namespace, "-o", "json")
			for name, data := range cm.Data {
				os.WriteFile(filepath.Join(host, name), []byte(data), 0o644)
			}
		}
	}
	c := p.Spec.Containers[0]
	for _, m := range c.VolumeMounts {
		mounts[m.MountPath] = filepath.Join(sandbox, "volumes", m.Name)
	}
	env := map[string]string{}
	for _, e := range c.Env {
		switch {
		case e.ValueFrom != nil && e.ValueFrom.FieldRef != nil:
			env[e.Name] = fieldRef(p, e.ValueFrom.FieldRef.FieldPath)
		default:
			env[e.Name] = e.Value
		}
	}
	argv := append(append([]string{}, c.Command...), c.Args...)
	for i, a := range argv {
		argv[i] = rewriteMounts(expandVars(a, env), mounts)
	}
	// The exec stand-in finds the pod's mounts here.
	mj, _ := json.Marshal(mounts)
	os.WriteFile(filepath.Join(k.dir, p.Name+".mounts"), mj, 0o644)
	now := time.Now().UTC().Format(time.RFC3339)
	k.status(t, p, fmt.Sprintf(`{"status":{"phase":"Running","startTime":%q,"containerStatuses":[{"name":"loadlab","image":%q,"imageID":"","ready":true,"started":true,"restartCount":0,"state":{"running":{"startedAt":%q}}}]}}`, now, c.Image, now))
	cmd := loadlabCommand(ctx, argv[1:]...)
	for n, v := range env {
		cmd.Env = append(cmd.Env, n+"="+v)
	}
	logf, _ := os.Create(filepath.Join(sandbox, "container.log"))
	cmd.Stdout, cmd.Stderr = logf, logf
	err := cmd.Run()
	logf.Close()
	code := 0
	if err != nil {
		code = 1
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		}
	}
	phase := "Succeeded"
	if code != 0 {
		phase = "Failed"
	}
	end := time.Now().UTC().Format(time.RFC3339)
	k.status(t, p, fmt.Sprintf(`{"status":{"phase":%q,"containerStatuses":[{"name":"loadlab","image":%q,"imageID":"","ready":false,"started":false,"restartCount":0,"state":{"terminated":{"exitCode":%d,"startedAt":%q,"finishedAt":%q,"reason":"Completed"}}}]}}`, phase, c.Image, code, now, end))
}

func (k *standinKubelet) status(t *testing.T, p corev1.Pod, patch string) {
	if out, err := k.cp.run("patch", "pod", p.Name, "-n", p.Namespace, "--subresource=status", "--type=merge", "-p", patch); err != nil {
		t.Errorf("patching pod %s status: %v %s", p.Name, err, out)
	}
}

var annotationRef = regexp.MustCompile(`^metadata\.annotations\['(.+)'\]$`)

// fieldRef resolves the downward API paths the fleet's pods use.
func fieldRef(p corev1.Pod, path string) string {
	if m := annotationRef.FindStringSubmatch(path); m != nil {
		return p.Annotations[m[1]]
	}
	switch path {
	case "metadata.name":
		return p.Name
	case "metadata.namespace":
		return p.Namespace
	}
	return ""
}

// expandVars expands $(VAR) as the kubelet does in command and args ($$
// is a literal $; an undefined variable is left as written).
func expandVars(s string, env map[string]string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '$' && i+1 < len(s) {
			if s[i+1] == '$' {
				b.WriteByte('$')
				i++
				continue
			}
			if s[i+1] == '(' {
				if j := strings.IndexByte(s[i:], ')'); j > 0 {
					if v, ok := env[s[i+2:i+j]]; ok {
						b.WriteString(v)
						i += j
						continue
					}
				}
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// rewriteMounts maps a path inside the container to the folder mounted
// there, as the container runtime's mount namespace would.
func rewriteMounts(a string, mounts map[string]string) string {
	for in, host := range mounts {
		if a == in || strings.HasPrefix(a, in+"/") {
			return host + strings.TrimPrefix(a, in)
		}
	}
	return a
}

// kubectlStandin is kubectl as the fleet calls it in TestFleetKube: the
// real kubectl for everything, except `kubectl exec`, which needs a
// kubelet; the exec runs the command in the pod's folder instead.
func kubectlStandin(spec string, args []string) int {
	real, pods, _ := strings.Cut(spec, ":")
	at := -1
	for i, a := range args {
		if a == "exec" {
			at = i
			break
		}
	}
	if at < 0 {
		cmd := exec.Command(real, args...)
		cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
		if err := cmd.Run(); err != nil {
			if ee, ok := err.(*exec.ExitError); ok {
				return ee.ExitCode()
			}
			return 1
		}
		return 0
	}
	pod := args[at+1]
	var inner []string
	for i, a := range args {
		if a == "--" {
			inner = args[i+1:]
			break
		}
	}
	var mounts map[string]string
	b, err := os.ReadFile(filepath.Join(pods, pod+".mounts"))
	if err != nil || json.Unmarshal(b, &mounts) != nil || len(inner) == 0 || inner[0] != "loadlab" {
		fmt.Fprintf(os.Stderr, "error: unable to upgrade connection: pod %s not running here\n", pod)
		return 1
	}
	for i, a := range inner {
		inner[i] = rewriteMounts(a, mounts)
	}
	cmd := loadlabCommand(context.Background(), inner[1:]...)
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	if err := cmd.Run(); err != nil {
		if ee, ok := err.(*exec.ExitError); ok {
			return ee.ExitCode()
		}
		return 1
	}
	return 0
}
