//go:build unix

package hostile

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"hash/crc32"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/klauspost/compress/zstd"
	_ "modernc.org/sqlite"

	"github.com/loadlab/loadlab/internal/testwait"
)

// huntRun is a real `loadlab run` folder (six builds of one page).
const huntRun = "../../internal/archive/ingest/testdata/regression-hunt"

// archiveCase is a folder with a copy of the regression hunt's run
// folder (run/) and an archive (runs.db) holding one run already, the
// fixture results file's.
func archiveCase(t *testing.T) string {
	t.Helper()
	dir := caseDir(t, nil)
	if err := os.CopyFS(filepath.Join(dir, "run"), os.DirFS(huntRun)); err != nil {
		t.Fatal(err)
	}
	if res := run(t, dir, "", "archive", "add", "-db", "runs.db", "r.lll"); res.code != 0 {
		t.Fatalf("archive add r.lll: exit %d: %s", res.code, res.stderr)
	}
	return dir
}

// runs is what `archive list` says of the archive in dir.
func runs(t *testing.T, dir string) string {
	t.Helper()
	res := run(t, dir, "", "archive", "list", "-db", "runs.db")
	if res.code != 0 {
		t.Fatalf("archive list: exit %d: %s", res.code, res.stderr)
	}
	return res.stdout
}

// swap removes dir/name and puts what mk makes in its place.
func swap(t *testing.T, dir, name string, mk func(p string) error) {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.RemoveAll(p); err != nil {
		t.Fatal(err)
	}
	if err := mk(p); err != nil {
		t.Fatal(err)
	}
}

func symlinkTo(target string) func(string) error {
	return func(p string) error { return os.Symlink(target, p) }
}

func mkfifo(p string) error { return syscall.Mkfifo(p, 0o644) }

// setResults points summary.json's first step's first scenario at name.
func setResults(name string) func(p string) error {
	return func(p string) error {
		data, err := os.ReadFile(filepath.Join(huntRun, "summary.json"))
		if err != nil {
			return err
		}
		var s map[string]any
		if err := json.Unmarshal(data, &s); err != nil {
			return err
		}
		s["steps"].([]any)[0].(map[string]any)["scenarios"].([]any)[0].(map[string]any)["results"] = name
		if data, err = json.Marshal(s); err != nil {
			return err
		}
		return os.WriteFile(p, data, 0o644)
	}
}

// archive add stores only the run folder's own regular files: a link out
// of it (the plan to /etc/passwd, a component's log to /etc/shadow, a
// step's folder to a folder holding a key), a results path through ..,
// /dev/zero and FIFOs are each refused with one line naming them, exit
// 2, at once, the archive as it was.
func TestArchiveAddOnlyTheFoldersFiles(t *testing.T) {
	cases := []struct {
		name, file string
		mk         func(p string) error
		want       string
	}{
		{"plan to /etc/passwd", "run/plan.yaml", symlinkTo("/etc/passwd"), "plan.yaml: is a link to outside the run folder (/etc/passwd)"},
		{"report to /etc/passwd", "run/report.md", symlinkTo("/etc/passwd"), "report.md: is a link to outside the run folder"},
		{"log to /etc/shadow", "run/components/build-2020-01-09-step01.log", symlinkTo("/etc/shadow"), "build-2020-01-09-step01.log: is a link to outside the run folder"},
		{"step folder to a key's", "run/steps/01-build-2020-01-09", func(p string) error {
			keys := filepath.Join(filepath.Dir(filepath.Dir(filepath.Dir(p))), "keys")
			if err := os.MkdirAll(keys, 0o700); err != nil {
				return err
			}
			if err := os.WriteFile(filepath.Join(keys, "id_rsa"), []byte("PRIVATE KEY"), 0o600); err != nil {
				return err
			}
			return os.Symlink(keys, p)
		}, "run/steps/01-build-2020-01-09"}, // its results file is the first met through it
		{"results through ..", "run/summary.json", setResults("../r.lll"), `steps[0].scenarios[0].results: "../r.lll" is outside the run folder`},
		{"samples to /dev/zero", "run/samples.json", symlinkTo("/dev/zero"), "samples.json: is a link to outside the run folder (/dev/zero)"},
		{"plan to /dev/zero", "run/plan.yaml", symlinkTo("/dev/zero"), "plan.yaml: is a link to outside the run folder (/dev/zero)"},
		{"samples a FIFO", "run/samples.json", mkfifo, "samples.json: is a FIFO"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := archiveCase(t)
			swap(t, dir, tc.file, tc.mk)
			before, files := runs(t, dir), snapshotNoFIFO(t, dir)
			res := run(t, dir, "", "archive", "add", "-db", "runs.db", "run")
			if res.code != 2 || !strings.Contains(res.stderr, tc.want) || !strings.Contains(res.stderr, "outside the run folder") && !strings.Contains(res.stderr, "FIFO") {
				t.Fatalf("exit %d, stderr %q; want 2 and %q refused", res.code, res.stderr, tc.want)
			}
			oneLine(t, res.stderr)
			if after := runs(t, dir); after != before {
				t.Errorf("archive changed:\n%s\nwas\n%s", after, before)
			}
			delete(files, "runs.db")
			after := snapshotNoFIFO(t, dir)
			delete(after, "runs.db")
			sameFiles(t, files, after)
		})
	}
}

// snapshotNoFIFO is snapshot with FIFOs named, not read (reading one
// would wait for a writer).
func snapshotNoFIFO(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		switch {
		case fi.Mode()&os.ModeSymlink != 0:
			target, _ := os.Readlink(p)
			out[rel] = "-> " + target
		case fi.Mode()&os.ModeNamedPipe != 0:
			out[rel] = "fifo"
		case fi.IsDir():
			out[rel+"/"] = "dir"
		default:
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			out[rel] = fmt.Sprintf("%x", sha256.Sum256(b))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// A FIFO named on the command line is refused at once, not waited on.
func TestArchiveAddFIFOArgument(t *testing.T) {
	dir := archiveCase(t)
	if err := mkfifo(filepath.Join(dir, "live.lll")); err != nil {
		t.Fatal(err)
	}
	res := run(t, dir, "", "archive", "add", "-db", "runs.db", "live.lll")
	if res.code != 2 || !strings.Contains(res.stderr, "live.lll: is a FIFO") {
		t.Fatalf("exit %d, stderr %q; want 2 and the FIFO named", res.code, res.stderr)
	}
	oneLine(t, res.stderr)
}

// Ctrl-C during a long add (a run folder whose report.html is a 50 GiB
// sparse file: minutes of reading and hashing) ends it within a second
// or so: exit 130, one line, nothing added.
func TestArchiveAddInterrupted(t *testing.T) {
	dir := archiveCase(t)
	huge := filepath.Join(dir, "run", "report.html")
	f, err := os.Create(huge)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(50 << 30); err != nil {
		t.Skip("no 50 GiB sparse file here:", err)
	}
	f.Close()
	before := runs(t, dir)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "archive", "add", "-db", "runs.db", "run")
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// the add is reading the huge file: it holds it open
	testwait.Eventually(t, 30*time.Second, "archive add opening report.html", func() bool {
		ents, _ := os.ReadDir(fmt.Sprintf("/proc/%d/fd", cmd.Process.Pid))
		for _, e := range ents {
			if l, _ := os.Readlink(fmt.Sprintf("/proc/%d/fd/%s", cmd.Process.Pid, e.Name())); l == huge {
				return true
			}
		}
		return false
	})
	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	sent := time.Now()
	err = cmd.Wait()
	took := time.Since(sent)
	code := cmd.ProcessState.ExitCode()
	t.Logf("exit %d %v after SIGINT: %s", code, took, stderr.String())
	if code != 130 || took > 3*time.Second {
		t.Fatalf("exit %d (%v) %v after SIGINT; want 130 within 3 s", code, err, took)
	}
	oneLine(t, stderr.String())
	if after := runs(t, dir); after != before {
		t.Errorf("archive changed:\n%s\nwas\n%s", after, before)
	}
}

// forgeResults is the fixture results file's header followed by one
// block as a hostile writer makes it: count records announced in raw
// (decompressed, rawLen bytes), with a checksum that holds.
func forgeResults(t *testing.T, raw []byte, rawLen, count uint64) []byte {
	t.Helper()
	good, err := os.ReadFile(filepath.Join(fixtures, "r.lll"))
	if err != nil {
		t.Fatal(err)
	}
	// "LOADLAB\n" | uvarint version | uvarint len | meta, then a block's
	// 16-byte sync marker
	rd := bytes.NewReader(good[8:])
	if _, err := binary.ReadUvarint(rd); err != nil {
		t.Fatal(err)
	}
	n, err := binary.ReadUvarint(rd)
	if err != nil {
		t.Fatal(err)
	}
	head := len(good) - rd.Len() + int(n)
	marker := good[head : head+16]
	e, _ := zstd.NewWriter(nil)
	z := e.EncodeAll(raw, nil)
	e.Close()
	var hdr []byte
	hdr = binary.AppendUvarint(hdr, uint64(len(z)))
	hdr = binary.AppendUvarint(hdr, rawLen)
	hdr = binary.AppendUvarint(hdr, count)
	out := append(append([]byte(nil), good[:head]...), marker...)
	out = append(out, hdr...)
	castagnoli := crc32.MakeTable(crc32.Castagnoli)
	out = binary.LittleEndian.AppendUint32(out, crc32.Update(crc32.Checksum(hdr, castagnoli), castagnoli, z))
	return append(out, z...)
}

// A results file of a few KiB announcing a million results (a
// decompression bomb: 11 MiB of minimal records) is refused at add with
// one line naming it, exit 2; the archive as it was.
func TestArchiveAddResultsBomb(t *testing.T) {
	dir := archiveCase(t)
	const count = 1 << 20
	raw := append([]byte{0}, bytes.Repeat([]byte{0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0}, count)...) // no dictionary entries, then records
	bomb := forgeResults(t, raw, uint64(len(raw)), count)
	if len(bomb) > 64<<10 {
		t.Fatalf("the bomb is %d bytes", len(bomb))
	}
	if err := os.WriteFile(filepath.Join(dir, "bomb.lll"), bomb, 0o644); err != nil {
		t.Fatal(err)
	}
	before := runs(t, dir)
	res := run(t, dir, "", "archive", "add", "-db", "runs.db", "bomb.lll")
	if res.code != 2 || !strings.Contains(res.stderr, "bomb.lll") || !strings.Contains(res.stderr, "hostile") {
		t.Fatalf("exit %d, stderr %q; want 2 and the file named hostile", res.code, res.stderr)
	}
	t.Logf("%s", res.stderr)
	oneLine(t, res.stderr)
	if after := runs(t, dir); after != before {
		t.Errorf("archive changed:\n%s\nwas\n%s", after, before)
	}
}

// An archive forged to hold a chunk that expands to 1 GiB (in a few
// hundred KiB) costs the site one 500 for that run's page and a tar cut
// short: the server stays up and serves the other pages.
func TestArchiveServeSurvivesChunkBomb(t *testing.T) {
	dir := archiveCase(t)
	res := run(t, dir, "", "archive", "add", "-db", "runs.db", "-label", "kind=folder", "run")
	if res.code != 0 {
		t.Fatalf("archive add run: exit %d: %s", res.code, res.stderr)
	}
	id := strings.Fields(res.stdout)[0]
	var zb bytes.Buffer
	zw, _ := zstd.NewWriter(&zb, zstd.WithEncoderLevel(zstd.SpeedFastest))
	zero := make([]byte, 1<<20)
	for range 1024 {
		zw.Write(zero)
	}
	zw.Close()
	db, err := sql.Open("sqlite", filepath.Join(dir, "runs.db"))
	if err != nil {
		t.Fatal(err)
	}
	_, err = db.Exec(`UPDATE chunks SET codec = 'zstd', data = ? WHERE name = 'summary.json' AND n = 0 AND run_seq = (SELECT seq FROM runs WHERE id = ?)`, zb.Bytes(), id)
	db.Close()
	if err != nil {
		t.Fatal(err)
	}
	base, cmd := startSite(t, dir, "runs.db")
	cl := &http.Client{Timeout: 30 * time.Second}
	get := func(path string) (int, int64) {
		resp, err := cl.Get(base + path)
		if err != nil {
			return 0, 0
		}
		defer resp.Body.Close()
		n, _ := io.Copy(io.Discard, resp.Body)
		return resp.StatusCode, n
	}
	for i := 0; i < 3; i++ {
		if code, _ := get("/runs/" + id); code != http.StatusInternalServerError {
			t.Fatalf("the forged run's page: %d, want 500", code)
		}
		if code, n := get("/runs/" + id + "/archive.tar"); code != http.StatusOK || n > 64<<20 {
			t.Fatalf("the forged run's tar: %d, %d bytes", code, n)
		}
		if code, _ := get("/"); code != http.StatusOK {
			t.Fatalf("the index after the forged page: %d (the server died?)", code)
		}
	}
	// the chunk was never expanded: the server's peak memory stayed far
	// below the gigabyte it holds
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", cmd.Process.Pid))
	if err != nil {
		t.Skip("no /proc here:", err)
	}
	var peakKB int64
	for _, line := range strings.Split(string(status), "\n") {
		if strings.HasPrefix(line, "VmHWM:") {
			fmt.Sscan(strings.TrimPrefix(line, "VmHWM:"), &peakKB)
		}
	}
	t.Logf("archive serve's peak RSS: %d MiB", peakKB>>10)
	if peakKB == 0 || peakKB > 256<<10 {
		t.Errorf("archive serve's peak RSS %d MiB, want under 256 MiB", peakKB>>10)
	}
}

// startSite runs archive serve on the archive db in dir until the test
// ends; it returns the site's address and the running command.
func startSite(t *testing.T, dir, db string) (string, *exec.Cmd) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	cmd := exec.CommandContext(ctx, bin, "archive", "serve", "-db", db, "-listen", "127.0.0.1:0")
	cmd.Dir = dir
	errPipe, _ := cmd.StderrPipe()
	if err := cmd.Start(); err != nil {
		cancel()
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait(); cancel() })
	sc := bufio.NewScanner(errPipe)
	var base string
	for sc.Scan() {
		if m := regexp.MustCompile(`archive site: (http://[0-9.:]+)/`).FindStringSubmatch(sc.Text()); m != nil {
			base = m[1]
			break
		}
	}
	if base == "" {
		t.Fatal("archive serve printed no address")
	}
	go io.Copy(io.Discard, errPipe)
	return base, cmd
}

// An archive forged to hold, as a run's results file, a bomb (a few KiB
// announcing a million results): its vegeta download stops at the bomb
// at once, nothing of it decoded, and the site serves on.
func TestArchiveServeResultsBomb(t *testing.T) {
	dir := caseDir(t, nil)
	res := run(t, dir, "", "archive", "add", "-db", "runs.db", "r.lll")
	if res.code != 0 {
		t.Fatalf("archive add: exit %d: %s", res.code, res.stderr)
	}
	id := strings.TrimSpace(res.stdout)
	const count = 1 << 20
	raw := append([]byte{0}, bytes.Repeat([]byte{0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0}, count)...)
	bomb := forgeResults(t, raw, uint64(len(raw)), count)
	db, err := sql.Open("sqlite", filepath.Join(dir, "runs.db"))
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []struct {
		sql  string
		args []any
	}{
		{`DELETE FROM chunks WHERE name = 'r.lll' AND n > 0`, nil},
		{`UPDATE chunks SET codec = 'raw', data = ? WHERE name = 'r.lll' AND n = 0`, []any{bomb}},
		{`UPDATE files SET size = ? WHERE name = 'r.lll'`, []any{len(bomb)}},
	} {
		if _, err := db.Exec(q.sql, q.args...); err != nil {
			db.Close()
			t.Fatal(err)
		}
	}
	db.Close()
	base, _ := startSite(t, dir, "runs.db")
	cl := &http.Client{Timeout: 30 * time.Second}
	start := time.Now()
	resp, err := cl.Get(base + "/runs/" + id + "/results.bin")
	if err != nil {
		t.Fatal(err)
	}
	n, _ := io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	took := time.Since(start)
	t.Logf("results.bin of the bomb: %d bytes in %v", n, took)
	if n > 1<<20 || took > 10*time.Second {
		t.Fatalf("results.bin of the bomb: %d bytes in %v; want it stopped at the bomb", n, took)
	}
	for _, path := range []string{"/", "/runs/" + id} {
		resp, err := cl.Get(base + path)
		if err != nil {
			t.Fatalf("%s after the bomb: %v", path, err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("%s after the bomb: %d", path, resp.StatusCode)
		}
	}
}
