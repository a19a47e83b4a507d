package main

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
)

// loginSite is a real server on loopback: POST /login answers a token and
// a session cookie for the right password; /home answers 401 without both.
func loginSite(t *testing.T) (*httptest.Server, *atomic.Int64) {
	var homes atomic.Int64
	mux := http.NewServeMux()
	mux.HandleFunc("POST /login", func(w http.ResponseWriter, r *http.Request) {
		var in struct{ User, Password string }
		if err := json.NewDecoder(r.Body).Decode(&in); err != nil || in.Password != "secret" {
			w.WriteHeader(http.StatusForbidden)
			return
		}
		http.SetCookie(w, &http.Cookie{Name: "sid", Value: "s-" + in.User})
		fmt.Fprintf(w, `{"token":"tok-%s"}`, in.User)
	})
	mux.HandleFunc("GET /home", func(w http.ResponseWriter, r *http.Request) {
		c, err := r.Cookie("sid")
		user, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer tok-")
		if !ok || err != nil || c.Value != "s-"+user {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		homes.Add(1)
		fmt.Fprintf(w, "welcome %s", user)
	})
	mux.HandleFunc("GET /plain", func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "hello") })
	s := httptest.NewServer(mux)
	t.Cleanup(s.Close)
	return s, &homes
}

// writeFlowFiles writes name → contents into dir, "URL" replaced by url.
func writeFlowFiles(t *testing.T, dir, url string, files map[string]string) {
	t.Helper()
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(strings.ReplaceAll(body, "URL", url)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

const loginFlow = `name: login-and-browse
data: users.csv
steps:
  - name: login
    request:
      method: POST
      url: URL/login
      body: '{"user":"{{user}}","password":"{{password}}"}'
    capture:
      - {var: token, json: "$.token"}
    check:
      - {status: 200}
  - group: browse
    steps:
      - name: home
        request: {url: "URL/home", headers: {Authorization: "Bearer {{token}}"}}
        check:
          - {status: 200}
          - {body_contains: welcome}
`

// attack -flow through the real binary: sessions log in, keep the token
// and the cookie, browse with them; report counts the sessions, the
// checks (a wrong password fails its login's check and stops its
// session) and, with -by step, each step in vegeta's layout.
func TestAttackFlowAndReport(t *testing.T) {
	s, homes := loginSite(t)
	dir := t.TempDir()
	writeFlowFiles(t, dir, s.URL, map[string]string{"flow.yaml": loginFlow, "users.csv": "user,password\nann,secret\nben,secret\nmal,wrong\n"})
	out := filepath.Join(dir, "r.lll")
	if _, stderr, code := runBinary(t, "", "attack", "-flow", filepath.Join(dir, "flow.yaml"), "-rate", "20/s", "-duration", "600ms", "-output", out); code != 0 {
		t.Fatalf("attack: exit %d: %s", code, stderr)
	}
	// 12 sessions: rows ann, ben, mal in turn; mal's 4 stop at login
	if homes.Load() != 8 {
		t.Fatalf("/home answered %d sessions, want 8", homes.Load())
	}
	text, stderr, code := runBinary(t, "", "report", "-by", "step", out)
	if code != 0 {
		t.Fatalf("report: exit %d: %s", code, stderr)
	}
	spaces := regexp.MustCompile(` +`)
	squashed := spaces.ReplaceAllString(text, " ")
	for _, want := range []string{
		"Requests [total, rate, throughput] 20, ",
		"Sessions [started, completed, failed, interrupted, dropped] 12, 8, 4, 0, 0",
		"Accounting [scheduled sessions, requests sent, dropped sessions] 12, 20, 0 (every scheduled session recorded once)",
		" 4 check login: status 200",
		"✗ login: status 200 8 4 66.67%",
		"✓ browse/home: status 200 8 0 100.00%",
		"✓ browse/home: body contains welcome 8 0 100.00%",
		"\nStep login\nRequests [total, rate, throughput] 12, ",
		"\nStep browse/home\nRequests [total, rate, throughput] 8, ",
	} {
		if !strings.Contains(squashed, want) {
			t.Errorf("report lacks %q:\n%s", want, text)
		}
	}
	js, _, code := runBinary(t, "", "report", "-type", "json", "-by", "step", out)
	if code != 0 {
		t.Fatal("json report failed")
	}
	var j struct {
		Requests int
		Flow     struct {
			Sessions struct {
				Started, Completed, Failed int
				FailedBy                   map[string]int `json:"failed_by"`
			}
			Checks []struct {
				Name          string
				Passes, Fails int
			}
			ByStep []struct{ Step string } `json:"by_flow_step"`
		}
	}
	if err := json.Unmarshal([]byte(js), &j); err != nil {
		t.Fatal(err)
	}
	if j.Requests != 20 || j.Flow.Sessions.Started != 12 || j.Flow.Sessions.Completed != 8 || j.Flow.Sessions.FailedBy["check login: status 200"] != 4 ||
		len(j.Flow.Checks) != 3 || j.Flow.Checks[0].Fails != 4 || len(j.Flow.ByStep) != 2 {
		t.Fatalf("JSON report: %+v", j)
	}
}

// A one-request flow without captures gives the results and the report of
// the plain attack of the same request.
func TestOneRequestFlowIsThePlainAttack(t *testing.T) {
	s, _ := loginSite(t)
	dir := t.TempDir()
	writeFlowFiles(t, dir, s.URL, map[string]string{"flow.yaml": "steps:\n  - request: {url: \"URL/plain\"}\n"})
	plain, flow := filepath.Join(dir, "plain.lll"), filepath.Join(dir, "flow.lll")
	common := []string{"-rate", "20/s", "-duration", "500ms", "-name", "x"}
	if _, stderr, code := runBinary(t, "GET "+s.URL+"/plain\n", append([]string{"attack", "-output", plain}, common...)...); code != 0 {
		t.Fatalf("plain attack: %s", stderr)
	}
	if _, stderr, code := runBinary(t, "", append([]string{"attack", "-flow", filepath.Join(dir, "flow.yaml"), "-output", flow}, common...)...); code != 0 {
		t.Fatalf("flow attack: %s", stderr)
	}
	// vegeta's CSV of both: the same requests (seq, method, URL, attack),
	// the same answers (code, bytes, error); only the times differ
	rows := func(file string) [][]string {
		out, stderr, code := runBinary(t, "", "encode", "-to", "csv", file)
		if code != 0 {
			t.Fatalf("encode %s: %s", file, stderr)
		}
		recs, err := csv.NewReader(strings.NewReader(out)).ReadAll()
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range recs {
			r[0], r[2] = "", "" // timestamp, latency
		}
		// in sequence order (a file is in completion order)
		sort.Slice(recs, func(i, j int) bool {
			a, _ := strconv.Atoi(recs[i][8])
			b, _ := strconv.Atoi(recs[j][8])
			return a < b
		})
		return recs
	}
	p, f := rows(plain), rows(flow)
	if len(p) != 10 || fmt.Sprint(p) != fmt.Sprint(f) {
		t.Fatalf("plain attack's results\n%v\nthe flow's\n%v", p, f)
	}
	report := func(file string) map[string]any {
		out, _, code := runBinary(t, "", "report", "-type", "json", file)
		if code != 0 {
			t.Fatal("report failed")
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(out), &m); err != nil {
			t.Fatal(err)
		}
		return m
	}
	pr, fr := report(plain), report(flow)
	for _, k := range []string{"requests", "success", "status_codes", "bytes_in", "bytes_out", "errors", "dropped", "by_target"} {
		if fmt.Sprint(pr[k]) != fmt.Sprint(fr[k]) {
			t.Errorf("%s: plain %v, flow %v", k, pr[k], fr[k])
		}
	}
}

// Bad flows and flags: one line naming the file, line and field, exit 2,
// nothing written.
func TestAttackFlowBadInput(t *testing.T) {
	dir := t.TempDir()
	writeFlowFiles(t, dir, "http://127.0.0.1:1", map[string]string{
		"kind.yaml":   "steps:\n  - fetch: {url: URL/}\n",
		"field.yaml":  "steps:\n  - request: {url: URL/}\n    check: [{status: 200, contains: x}]\n",
		"var.yaml":    "steps:\n  - request: {url: URL/}\n    capture: [{json: $.a}]\n",
		"path.yaml":   "steps:\n  - request: {url: URL/}\n    capture: [{var: a, json: \"$..a\"}]\n",
		"data.yaml":   "data: gone.csv\nsteps:\n  - request: {url: URL/}\n",
		"ragged.yaml": "data: ragged.csv\nsteps:\n  - request: {url: URL/}\n",
		"ragged.csv":  "a,b\n1,2\n3\n",
		"undef.yaml":  "steps:\n  - request: {url: \"URL/{{who}}\"}\n",
		"ok.yaml":     "steps:\n  - request: {url: URL/}\n",
	})
	f := func(name string) string { return filepath.Join(dir, name) }
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"-flow", f("kind.yaml")}, f("kind.yaml") + ":2: steps[0].fetch: unknown step kind"},
		{[]string{"-flow", f("field.yaml")}, f("field.yaml") + ":3: steps[0].check[0].contains: contains goes with header"},
		{[]string{"-flow", f("var.yaml")}, f("var.yaml") + ":3: steps[0].capture[0].var: a capture must name the variable it sets"},
		{[]string{"-flow", f("path.yaml")}, f("path.yaml") + `:3: steps[0].capture[0].json: JSON path "$..a", column 2: a name must follow '.'`},
		{[]string{"-flow", f("data.yaml")}, f("data.yaml") + `:1: data: cannot read data file "gone.csv"`},
		{[]string{"-flow", f("ragged.yaml")}, f("ragged.csv") + ":3: ragged row"},
		{[]string{"-flow", f("undef.yaml")}, f("undef.yaml") + ":2: steps[0].request.url: template column 20: variable who is used before anything defines it"},
		{[]string{"-flow", f("missing.yaml")}, f("missing.yaml") + ": cannot read flow"},
		{[]string{"-flow", f("ok.yaml"), "-users", "0"}, "-users: want 1 or more users"},
		{[]string{"-flow", f("ok.yaml"), "-users", "2", "-rate", "5/s"}, "-users: a closed model of N users has no arrival rate"},
		{[]string{"-flow", f("ok.yaml"), "-targets", f("ok.yaml")}, "-targets: does not go with -flow"},
		{[]string{"-users", "3"}, "-users: goes with -flow FILE"},
	}
	for _, c := range cases {
		out := filepath.Join(dir, "out.lll")
		_, stderr, code := runBinary(t, "", append([]string{"attack", "-duration", "1s", "-output", out}, c.args...)...)
		lines := strings.Split(strings.TrimSpace(stderr), "\n")
		if code != 2 || len(lines) != 1 || !strings.Contains(lines[0], c.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 and one line holding %q", c.args, code, stderr, c.want)
		}
		if _, err := os.Stat(out); !os.IsNotExist(err) {
			t.Errorf("%v: %s was written", c.args, out)
		}
	}
}

// A plan's scenario runs a flow (flow: FILE, its URLs with ${target}): the
// run records the flow's results, which report as sessions and steps; a
// bad flow in a plan is refused by run -check, naming the flow file's line.
func TestRunPlanFlowScenario(t *testing.T) {
	s, homes := loginSite(t)
	dir := t.TempDir()
	writeFlowFiles(t, dir, "${target}", map[string]string{
		"flow.yaml":    loginFlow,
		"users.csv":    "user,password\nann,secret\n",
		"plan.yaml":    "name: journeys\ntarget: " + s.URL + "\nscenarios:\n  - {flow: flow.yaml, rate: 20, duration: 500ms}\n",
		"bad.yaml":     "name: journeys\ntarget: " + s.URL + "\nscenarios:\n  - {flow: badflow.yaml, rate: 20, duration: 500ms}\n",
		"badflow.yaml": "steps:\n  - request: {url: \"URL/\"}\n    capture: [{var: x, json: \"$.a[\"}]\n",
	})
	out := filepath.Join(dir, "out")
	if code, stdout, errOut := runCLI(t, nil, "run", "-quiet", "-out", out, filepath.Join(dir, "plan.yaml")); code != 0 {
		t.Fatalf("run: exit %d: %s\n%s", code, errOut, stdout)
	}
	if homes.Load() != 10 {
		t.Fatalf("/home answered %d sessions, want 10", homes.Load())
	}
	files, _ := filepath.Glob(filepath.Join(out, "steps", "*", "flow.lll"))
	if len(files) != 1 {
		t.Fatalf("results files %v", files)
	}
	code, text, errOut := runCLI(t, nil, "report", "-by", "step", files[0])
	if code != 0 || !strings.Contains(regexp.MustCompile(` +`).ReplaceAllString(text, " "), "Sessions [started, completed, failed, interrupted, dropped] 10, 10, 0, 0, 0") {
		t.Fatalf("report: exit %d %s\n%s", code, errOut, text)
	}
	code, _, errOut = runCLI(t, nil, "run", "-check", filepath.Join(dir, "bad.yaml"))
	if want := filepath.Join(dir, "badflow.yaml") + `:3: steps[0].capture[0].json: JSON path "$.a["`; code != 2 || !strings.Contains(errOut, want) {
		t.Fatalf("bad flow in a plan: exit %d: %s (want %s)", code, errOut, want)
	}
}

// attack -flow -users N: a closed model of N users looping the flow, each
// session logging in and browsing; the report counts their sessions.
func TestAttackFlowUsers(t *testing.T) {
	s, homes := loginSite(t)
	dir := t.TempDir()
	writeFlowFiles(t, dir, s.URL, map[string]string{"flow.yaml": loginFlow, "users.csv": "user,password\nann,secret\n"})
	out := filepath.Join(dir, "r.lll")
	if _, stderr, code := runBinary(t, "", "attack", "-flow", filepath.Join(dir, "flow.yaml"), "-users", "2", "-duration", "300ms", "-output", out); code != 0 {
		t.Fatalf("attack: exit %d: %s", code, stderr)
	}
	js, _, code := runBinary(t, "", "report", "-type", "json", out)
	if code != 0 {
		t.Fatal("report failed")
	}
	var j struct {
		Requests int
		Flow     struct {
			Sessions struct{ Started, Completed int }
		}
	}
	if err := json.Unmarshal([]byte(js), &j); err != nil {
		t.Fatal(err)
	}
	if j.Flow.Sessions.Completed < 2 || j.Flow.Sessions.Completed != j.Flow.Sessions.Started || int64(j.Flow.Sessions.Completed) != homes.Load() || j.Requests != 2*j.Flow.Sessions.Completed {
		t.Fatalf("report %+v, /home answered %d", j, homes.Load())
	}
	text, _, _ := runBinary(t, "", "report", out)
	if !strings.Contains(text, "Sessions") {
		t.Fatalf("no sessions in the report:\n%s", text)
	}
}
