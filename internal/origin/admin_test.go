package origin

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/loadlab/loadlab/internal/badinput"
	"github.com/loadlab/loadlab/internal/testwait"
)

func TestAdminShapes(t *testing.T) {
	_, srv := newTestServer(t, Options{})
	cases := []struct {
		method, path string
		status       int
		ctype, body  string
	}{
		{"GET", "/_admin/status", 200, "text/plain; charset=utf-8", "ok!"},
		{"GET", "/_admin/routes", 200, "text/plain; charset=utf-8", "/*"},
		{"GET", "/_admin/routes_status", 200, "text/plain; charset=utf-8", "/* 200 100"},
		{"GET", "/_admin/clear_current_count", 200, "application/json; charset=utf-8", `{"cleared": "yes"}`},
		{"GET", "/_admin/current_count", 200, "application/json; charset=utf-8", `{"total_requests":0}`},
		{"GET", "/_admin/nope", 404, "application/json; charset=utf-8", ""},
		{"POST", "/_admin/status", 405, "application/json; charset=utf-8", ""},
		{"GET", "/_admin/add_recipe", 405, "application/json; charset=utf-8", ""},
	}
	for _, c := range cases {
		r := do(t, c.method, srv.URL+c.path, "")
		if r.status != c.status || r.header.Get("Content-Type") != c.ctype || (c.body != "" && string(r.body) != c.body) {
			t.Errorf("%s %s: %d %q %q; want %d %q %q", c.method, c.path, r.status, r.header.Get("Content-Type"), r.body, c.status, c.ctype, c.body)
		}
	}

	add := do(t, "POST", srv.URL+"/_admin/add_recipe", `{"route": "/n", "body": "b", "stages": [{"at": 0, "status": 200, "latency": "100ms..200ms"}]}`)
	var recs []map[string]any
	if add.status != 201 || json.Unmarshal(add.body, &recs) != nil || len(recs) != 1 || recs[0]["route"] != "/n" || recs[0]["body"] != "b" || recs[0]["origin"] != nil {
		t.Fatalf("add_recipe: %d %s", add.status, add.body)
	}
	st := recs[0]["stages"].([]any)[0].(map[string]any)
	if st["latency"] != "100ms..200ms" || st["at"] != 0.0 {
		t.Errorf("stage echoed as %v", st)
	}
	if r := get(t, srv.URL+"/_admin/routes_status"); string(r.body) != "/n 200 100..200" {
		t.Errorf("routes_status = %q", r.body)
	}
	get(t, srv.URL+"/n")
	get(t, srv.URL+"/n?status=503")
	get(t, srv.URL+"/other")
	var counts map[string]int
	if r := get(t, srv.URL+"/_admin/current_count"); json.Unmarshal(r.body, &counts) != nil ||
		counts["total_requests"] != 3 || counts["200"] != 1 || counts["503"] != 1 || counts["406"] != 1 {
		t.Errorf("current_count = %s", r.body)
	}
	if r := get(t, srv.URL+"/_admin/restart"); string(r.body) != "ok!" {
		t.Errorf("restart: %q", r.body)
	}
	if r := get(t, srv.URL+"/_admin/routes"); string(r.body) != "/*" {
		t.Errorf("after restart routes = %q", r.body)
	}
	if r := get(t, srv.URL+"/_admin/current_count"); string(r.body) != `{"total_requests":0}` {
		t.Errorf("after restart count = %s", r.body)
	}
}

func TestAdminToken(t *testing.T) {
	_, srv := newTestServer(t, Options{AdminToken: "s3cret"})
	for _, h := range [][]string{nil, {"Authorization", "Bearer wrong"}, {"Authorization", "s3cret"}} {
		r := get(t, srv.URL+"/_admin/status", h...)
		if r.status != http.StatusUnauthorized || !strings.HasPrefix(r.header.Get("WWW-Authenticate"), "Bearer") {
			t.Errorf("with %v: %d", h, r.status)
		}
	}
	if r := get(t, srv.URL+"/_admin/status", "Authorization", "Bearer s3cret"); r.status != 200 {
		t.Errorf("with the token: %d", r.status)
	}
	if r := get(t, srv.URL+"/page"); r.status != 200 {
		t.Errorf("simulated pages need no token: %d", r.status)
	}
}

func TestBadRecipes(t *testing.T) {
	_, srv := newTestServer(t, Options{MaxRecipeBytes: 2000})
	mustLoad(t, srv, `{"body": "good", "stages": [{"status": 200}]}`)
	cases := []struct {
		name, body, field, value, msg string
		status                        int
	}{
		{"not json", `{"stages": [`, "", "", "not valid JSON", 400},
		{"too large", `{"body": "` + strings.Repeat("x", 3000) + `", "stages": [{"status": 200}]}`, "", "", "limit", 413},
		{"bad latency", `{"stages": [{"status": 200, "latency": "fast"}]}`, "stages[0].latency", `"fast"`, "unit", 400},
		{"bad status", `[{"stages": [{"status": 200}]}, {"route": "/b", "stages": [{"status": 700}]}]`, "[1].stages[0].status", "700", "599", 400},
		{"local origin", `{"origin": "http://127.0.0.1:1/", "stages": [{"status": 200}]}`, "origin", "", "-allow-local-origins", 400},
		{"recipe memory", `{"random_content": "60mb..64mb", "stages": [{"status": 200}]}`, "", "", "512.0 MiB in total, more than the 256.0 MiB limit", 400},
	}
	for _, c := range cases {
		r := do(t, "POST", srv.URL+"/_admin/add_recipe", c.body)
		var e apiError
		if r.status != c.status || json.Unmarshal(r.body, &e) != nil {
			t.Errorf("%s: %d %s", c.name, r.status, r.body)
			continue
		}
		if e.Field != c.field || e.Value != c.value || !strings.Contains(e.Error, c.msg) {
			t.Errorf("%s: %+v; want field %q value %q msg %q", c.name, e, c.field, c.value, c.msg)
		}
		if g := get(t, srv.URL+"/"); string(g.body) != "good" {
			t.Errorf("%s: the previous recipe is no longer in force: %q", c.name, g.body)
		}
	}
}

func TestLoadRecipeErrorsNameFile(t *testing.T) {
	sim := New(Options{Seed: 1})
	defer sim.Close()
	err := sim.LoadRecipe([]byte(`{"stages": [{"status": 200, "latency": "5x"}]}`), "plan.json")
	var be *badinput.Error
	if !asBadInput(err, &be) || be.File != "plan.json" || be.Field != "stages[0].latency" {
		t.Fatalf("err = %v", err)
	}
	if want := `plan.json: stages[0].latency: unknown unit "x" (want ms or s): "5x"`; err.Error() != want {
		t.Errorf("message:\n got %s\nwant %s", err, want)
	}
}

func asBadInput(err error, be **badinput.Error) bool {
	e, ok := err.(*badinput.Error)
	*be = e
	return ok
}

func TestMetrics(t *testing.T) {
	_, srv := newTestServer(t, Options{})
	mustLoad(t, srv, `{"route": "/m*", "body": "12345", "stages": [{"status": 200}]}`)
	for range 3 {
		get(t, srv.URL+"/m/1")
	}
	do(t, "POST", srv.URL+"/m/1?fault=reset", "") // POST: the client does not retry it
	wants := []string{
		`loadlab_origin_requests_total{route="/m*",status="200"} 3`,
		`loadlab_origin_requests_total{route="/m*",status="aborted"} 1`,
		`loadlab_origin_faults_total{fault="reset",route="/m*"} 1`,
		`loadlab_origin_response_bytes_total{route="/m*"} 15`,
		`loadlab_origin_response_seconds_count{route="/m*"} 4`,
		`loadlab_origin_in_flight_requests 0`,
		`process_resident_memory_bytes`,
	}
	// The reset answer reaches the client before its handler has returned,
	// so the in-flight gauge may still be 1 for a moment: poll briefly.
	var text string
	testwait.Until(10*time.Second, func() bool {
		text = string(get(t, srv.URL+"/_admin/metrics").body)
		for _, want := range wants {
			if !strings.Contains(text, want) {
				return false
			}
		}
		return true
	})
	for _, want := range wants {
		if !strings.Contains(text, want) {
			t.Errorf("metrics lack %s", want)
		}
	}
	if t.Failed() {
		fmt.Println(text)
	}
}

func TestCurrentRecipeRoundTrip(t *testing.T) {
	_, srv := newTestServer(t, Options{})
	mustLoad(t, srv, `[{"route": "/a", "body": "x<<1kb>>", "headers": {"x-a": "1"}, "stages": [{"at": 0, "status": {"200": 1, "503": 1}, "latency": "1ms..2ms"}]},
	  {"route": "/b*", "random_content": "1kb", "stages": [{"status": 404}]}]`)
	first := get(t, srv.URL+"/_admin/current_recipe")
	mustLoad(t, srv, string(first.body))
	if again := get(t, srv.URL+"/_admin/current_recipe"); string(again.body) != string(first.body) {
		t.Errorf("current_recipe changed after reloading it:\n%s\n%s", first.body, again.body)
	}
}
