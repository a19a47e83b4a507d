package hostile

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/loadlab/loadlab/bench/labproc"
)

// server starts a loadlab server (origin, proxy) and stops it when the
// test ends.
func server(t *testing.T, args ...string) string {
	t.Helper()
	u, cmd, err := labproc.Start(context.Background(), io.Discard, bin, args...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { labproc.Stop(cmd) })
	return u
}

// Templates through both clients against a recording server: every value
// arrives as one header, nothing is injected.
func TestTemplatesInjectNothing(t *testing.T) {
	var mu sync.Mutex
	var got []http.Header
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		got = append(got, r.Header.Clone())
		mu.Unlock()
	}))
	defer srv.Close()
	for _, client := range []string{"lean", "std"} {
		mu.Lock()
		got = nil
		mu.Unlock()
		dir := caseDir(t, nil)
		res := run(t, dir, "GET "+srv.URL+"/{{seq}}\nX-T: {{rand.choice a \"b c\"}} {{uuid}} {{rand.int -3 3}}\n",
			"attack", "-client="+client, "-rate=100/s", "-duration=300ms", "-header=X-G: {{rand.alnum 8}}{{\"!\"}}", "-output=out.lll")
		if res.code != 0 {
			t.Fatalf("%s: exit %d: %s", client, res.code, res.stderr)
		}
		mu.Lock()
		if len(got) != 30 {
			t.Errorf("%s: server received %d requests, want 30", client, len(got))
		}
		valid := regexp.MustCompile(`^(a|b c) [0-9a-f-]{36} -?[0-3]$`)
		for _, h := range got {
			if len(h["X-T"]) != 1 || !valid.MatchString(h.Get("X-T")) || len(h["X-G"]) != 1 || len(h.Get("X-G")) != 9 || h.Get("Injected") != "" {
				t.Errorf("%s: headers %q", client, h)
			}
		}
		mu.Unlock()
	}
}

// An output that is one of the inputs, by name or through a hard or a
// symbolic link, is refused with nothing touched.
func TestOutputIsInputThroughLinks(t *testing.T) {
	dir := caseDir(t, nil)
	if err := os.Link(filepath.Join(dir, "r.lll"), filepath.Join(dir, "hard.lll")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("r.lll", filepath.Join(dir, "sym.lll")); err != nil {
		t.Fatal(err)
	}
	before := snapshot(t, dir)
	for _, args := range [][]string{
		{"encode", "-to=loadlab", "-output=hard.lll", "r.lll"},
		{"encode", "-to=csv", "-output=sym.lll", "r.lll"},
		{"report", "-output=hard.lll", "r.lll"},
		{"report", "-output=r.lll", "sym.lll"},
		{"plot", "-output=sym.lll", "r.lll"},
		{"plot", "-output=hard.lll", "-run=a=r.lll"},
	} {
		res := run(t, dir, "", args...)
		if res.code != 2 || !strings.Contains(res.stderr, "destroy") {
			t.Errorf("loadlab %s: exit %d, %q", strings.Join(args, " "), res.code, res.stderr)
		}
		oneLine(t, res.stderr)
	}
	sameFiles(t, before, snapshot(t, dir))
}

// A -strict failure leaves no half-written output: no file where there
// was none, the previous file where there was one.
func TestStrictFailureWritesNothing(t *testing.T) {
	dir := caseDir(t, map[string]string{"keep.csv": "before\n"})
	data, err := os.ReadFile(filepath.Join(dir, "r.lll"))
	if err != nil {
		t.Fatal(err)
	}
	data[len(data)*2/3] ^= 0xff
	if err := os.WriteFile(filepath.Join(dir, "dmg.lll"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	before := snapshot(t, dir)
	for _, args := range [][]string{
		{"encode", "-strict", "-to=csv", "-output=new.csv", "dmg.lll"},
		{"encode", "-strict", "-to=csv", "-output=keep.csv", "dmg.lll"},
		{"report", "-strict", "-output=new.txt", "dmg.lll"},
		{"report", "-strict", "-type=json", "-output=keep.csv", "dmg.lll"},
	} {
		res := run(t, dir, "", args...)
		if res.code != 2 {
			t.Errorf("loadlab %s: exit %d, %q", strings.Join(args, " "), res.code, res.stderr)
		}
	}
	sameFiles(t, before, snapshot(t, dir))
	// without -strict the same file is read past the damage and written
	res := run(t, dir, "", "encode", "-to=csv", "-output=new.csv", "dmg.lll")
	if res.code != 0 || !strings.Contains(res.stderr, "damaged region") {
		t.Errorf("encode past the damage: exit %d, %q", res.code, res.stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "new.csv")); err != nil {
		t.Error(err)
	}
}

// An attack of 1,000/s for 20 s killed with SIGKILL at 5 s, and a whole
// results file cut in half: the accounting says the attack did not
// finish and how much of the plan was never recorded.
func TestKilledAttackIsNotComplete(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	defer srv.Close()
	dir := caseDir(t, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "attack", "-rate=1000/s", "-duration=20s", "-output=killed.lll")
	cmd.Dir = dir
	cmd.Stdin = strings.NewReader("GET " + srv.URL + "/\n")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(5 * time.Second)
	_ = cmd.Process.Signal(syscall.SIGKILL)
	_ = cmd.Wait()
	res := run(t, dir, "", "report", "killed.lll")
	m := regexp.MustCompile(`the attack did not finish: (\d+) of the 20000 planned requests were never recorded`).FindStringSubmatch(res.stdout)
	if res.code != 0 || m == nil {
		t.Fatalf("report of the killed attack: exit %d\n%s%s", res.code, res.stdout, res.stderr)
	}
	var never int
	fmt.Sscan(m[1], &never)
	if never < 10000 || never >= 20000 {
		t.Errorf("%d never recorded after a kill at 5 s of 20 s", never)
	}
	// the fixture's attack ran to its end: cut in half, it did not
	whole, _ := os.ReadFile(filepath.Join(dir, "r.lll"))
	if res := run(t, dir, "", "report", "r.lll"); !strings.Contains(res.stdout, "(every scheduled request recorded once)") {
		t.Errorf("whole file: %s", res.stdout)
	}
	if err := os.WriteFile(filepath.Join(dir, "half.lll"), whole[:len(whole)/2], 0o644); err != nil {
		t.Fatal(err)
	}
	res = run(t, dir, "", "report", "half.lll")
	if res.code != 0 || !strings.Contains(res.stdout, "the attack did not finish") {
		t.Errorf("half file: exit %d\n%s%s", res.code, res.stdout, res.stderr)
	}
}

// One flipped bit in the header's JSON costs only the header: every
// result is read, a warning says what was lost; -strict stops.
func TestHeaderBitFlipKeepsResults(t *testing.T) {
	dir := caseDir(t, nil)
	data, _ := os.ReadFile(filepath.Join(dir, "r.lll"))
	want := run(t, dir, "", "report", "-type=json", "r.lll").stdout
	i := strings.Index(string(data), `{"version"`)
	if i < 0 {
		t.Fatal("no JSON header in the fixture")
	}
	data[i] ^= 0x04 // '{' -> '\x7f'
	if err := os.WriteFile(filepath.Join(dir, "flip.lll"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	res := run(t, dir, "", "report", "-type=json", "flip.lll")
	if res.code != 0 || !strings.Contains(res.stderr, "header's metadata") {
		t.Fatalf("exit %d, %q", res.code, res.stderr)
	}
	reqs := regexp.MustCompile(`"requests":\d+`)
	if reqs.FindString(res.stdout) != reqs.FindString(want) {
		t.Errorf("flipped header: %s, whole file: %s", reqs.FindString(res.stdout), reqs.FindString(want))
	}
	if res := run(t, dir, "", "report", "-strict", "flip.lll"); res.code != 2 {
		t.Errorf("-strict: exit %d", res.code)
	}
}

// A hole over several blocks: the warnings' total is the accounting's.
func TestHoleCountedOnce(t *testing.T) {
	dir := caseDir(t, nil)
	data, _ := os.ReadFile(filepath.Join(dir, "r.lll"))
	s := len(data) / 3
	copy(data[s:s+len(data)/4], make([]byte, len(data)/4)) // over a block boundary: the fixture has 4 or more
	if err := os.WriteFile(filepath.Join(dir, "hole.lll"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	res := run(t, dir, "", "report", "hole.lll")
	acct := regexp.MustCompile(`\((\d+) scheduled requests missing`).FindStringSubmatch(res.stdout)
	if res.code != 0 || acct == nil {
		t.Fatalf("exit %d\n%s%s", res.code, res.stdout, res.stderr)
	}
	exact := regexp.MustCompile(`, (\d+) results lost;`).FindAllStringSubmatch(res.stderr, -1)
	total := regexp.MustCompile(`(\d+) results lost in all`).FindStringSubmatch(res.stderr)
	switch {
	case total != nil && total[1] != acct[1]:
		t.Errorf("warnings say %s in all, the accounting %s:\n%s", total[1], acct[1], res.stderr)
	case total == nil && (len(exact) != 1 || exact[0][1] != acct[1]):
		t.Errorf("the warnings' count is not the accounting's %s:\n%s", acct[1], res.stderr)
	}
}

// Slow clients through the real proxy (a pool of 4 + 4): 8 bodies trickled
// and 8 heads never finished beside normal GETs, which all succeed.
func TestProxySlowClients(t *testing.T) {
	dir := caseDir(t, nil)
	origin := server(t, "origin", "-listen=127.0.0.1:0", "-recipe="+filepath.Join(dir, "recipe.json"), "-quiet")
	cfg := "pools: {default: {size: 4, overflow: 4, checkout_timeout: 500ms}}\nroutes: [{path: /*, upstream: \"" + origin + "\"}]\n"
	if err := os.WriteFile(filepath.Join(dir, "p.yaml"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	proxy := server(t, "proxy", "-config="+filepath.Join(dir, "p.yaml"), "-listen=127.0.0.1:0", "-client-body-timeout=5s")
	addr := strings.TrimPrefix(proxy, "http://")
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	for i := 0; i < 16; i++ {
		head := "POST /up HTTP/1.1\r\nHost: a\r\nContent-Length: 100\r\n\r\n"
		if i%2 == 1 {
			head = "GET /loris HTTP/1.1\r\nHost: a\r\n"
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			c, err := net.Dial("tcp", addr)
			if err != nil {
				return
			}
			defer c.Close()
			go func() { <-ctx.Done(); c.Close() }()
			io.WriteString(c, head)
			for ctx.Err() == nil {
				if _, err := c.Write([]byte("x")); err != nil {
					return
				}
				select {
				case <-ctx.Done():
				case <-time.After(200 * time.Millisecond):
				}
			}
		}()
	}
	time.Sleep(300 * time.Millisecond)
	res := run(t, dir, "GET "+proxy+"/news\n", "attack", "-rate=50/s", "-duration=2s", "-output=normal.lll")
	cancel()
	wg.Wait()
	if res.code != 0 {
		t.Fatalf("attack: exit %d: %s", res.code, res.stderr)
	}
	rep := run(t, dir, "", "report", "normal.lll")
	if !regexp.MustCompile(`Status Codes\s+\[code:count\]\s+200:100\s*\n`).MatchString(rep.stdout) {
		t.Errorf("normal GETs beside slow clients:\n%s", rep.stdout)
	}
}

// 8 parallel add_recipe calls of 60 MB against a 64 MB limit: one loads.
func TestOriginRecipeMemoryReserved(t *testing.T) {
	origin := server(t, "origin", "-listen=127.0.0.1:0", "-max-recipe-memory=64mb", "-quiet")
	var wg sync.WaitGroup
	codes := make([]int, 8)
	for i := range codes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			resp, err := http.Post(origin+"/_admin/add_recipe", "application/json",
				strings.NewReader(fmt.Sprintf(`{"route": "/r%d", "random_content": "60mb", "stages": [{"status": 200}]}`, i)))
			if err != nil {
				return
			}
			resp.Body.Close()
			codes[i] = resp.StatusCode
		}()
	}
	wg.Wait()
	n201, n400 := 0, 0
	for _, c := range codes {
		switch c {
		case 201:
			n201++
		case 400:
			n400++
		}
	}
	if n201 != 1 || n400 != 7 {
		t.Errorf("statuses %v, want one 201 and seven 400", codes)
	}
	// a state-changing call with only a cross-site Referer is refused
	req, _ := http.NewRequest("GET", origin+"/_admin/restart", nil)
	req.Header.Set("Referer", "http://evil.example/")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden {
		t.Errorf("GET /_admin/restart with a foreign Referer: %s", resp.Status)
	}
}

// A port in use: one line and exit 2 from each server, nothing logged
// before it.
func TestPortInUseOneLine(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	addr := ln.Addr().String()
	dir := caseDir(t, nil)
	for _, args := range [][]string{
		{"origin", "-listen=" + addr, "-recipe=recipe.json"},
		{"proxy", "-listen=" + addr, "-config=proxy.yaml"},
		{"attack", "-ui=" + addr, "-rate=1/s", "-duration=1s", "-output=out.lll"},
	} {
		res := run(t, dir, tgt, args...)
		if res.code != 2 {
			t.Errorf("loadlab %s: exit %d", strings.Join(args, " "), res.code)
		}
		oneLine(t, res.stderr)
	}
}
