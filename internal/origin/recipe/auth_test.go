package recipe

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loadlab/loadlab/internal/badinput"
)

func TestParseAuthAndList(t *testing.T) {
	rs, err := Parse([]byte(`[
	 {"route": "/login", "auth": "issue", "stages": [{"status": 200}]},
	 {"route": "/api*", "auth": "require", "body": "{\"ok\":true}", "stages": [{"status": 200}]},
	 {"route": "/items", "auth": "require", "list": {"total": 45, "page_size": 20}, "stages": [{"status": 200}]},
	 {"route": "/all", "list": {"total": 3}, "auth": null, "stages": [{"status": 200}]}
	]`))
	if err != nil {
		t.Fatal(err)
	}
	if rs[0].Auth != AuthIssue || rs[1].Auth != AuthRequire || rs[2].Auth != AuthRequire || rs[3].Auth != AuthNone {
		t.Errorf("auth = %v %v %v %v", rs[0].Auth, rs[1].Auth, rs[2].Auth, rs[3].Auth)
	}
	if rs[2].List == nil || *rs[2].List != (List{Total: 45, PageSize: 20}) || *rs[3].List != (List{Total: 3, PageSize: DefaultListPageSize}) || rs[1].List != nil {
		t.Errorf("lists = %+v %+v %+v", rs[1].List, rs[2].List, rs[3].List)
	}
	echo, _ := json.Marshal(rs[2].Echo)
	if !strings.Contains(string(echo), `"auth":"require","list":{"total":45,"page_size":20}`) {
		t.Errorf("echo = %s", echo)
	}
}

// The extension fields appear in current_recipe only when set: an
// origin_simulator recipe echoes exactly its six fields.
func TestVectorEchoUnchanged(t *testing.T) {
	files, _ := filepath.Glob("testdata/*.json")
	if len(files) < 17 {
		t.Fatalf("want the vector recipes, got %d", len(files))
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		rs, err := Parse(data)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		for _, r := range rs {
			if r.Auth != AuthNone || r.List != nil {
				t.Errorf("%s: %s has auth %v list %v", f, r.Route, r.Auth, r.List)
			}
			b, _ := json.Marshal(r.Echo)
			var m map[string]any
			if err := json.Unmarshal(b, &m); err != nil || len(m) != 6 {
				t.Errorf("%s: echo has %d fields, want origin_simulator's 6: %s", f, len(m), b)
			}
		}
	}
}

func TestParseAuthErrors(t *testing.T) {
	cases := []struct{ in, field, msg string }{
		{`{"auth": "login", "stages": [{"status": 200}]}`, "auth", `"issue"`},
		{`{"auth": true, "stages": [{"status": 200}]}`, "auth", `"require"`},
		{`{"auth": "issue", "body": "x", "stages": [{"status": 200}]}`, "auth", "made per request"},
		{`{"auth": "issue", "headers": {"content-encoding": "gzip"}, "stages": [{"status": 200}]}`, "headers", "gzip"},
		{`{"auth": "issue", "list": {"total": 1}, "stages": [{"status": 200}]}`, "list", "another route"},
		{`{"list": {"total": 1}, "random_content": "1kb", "stages": [{"status": 200}]}`, "list", "made per request"},
		{`{"list": {"page_size": 5}, "stages": [{"status": 200}]}`, "list.total", "missing"},
		{`{"list": {"total": -1}, "stages": [{"status": 200}]}`, "list.total", "whole number"},
		{`{"list": {"total": 2000000}, "stages": [{"status": 200}]}`, "list.total", "1000000"},
		{`{"list": {"total": 5, "page_size": 0}, "stages": [{"status": 200}]}`, "list.page_size", "from 1"},
		{`{"list": {"total": 5, "per_page": 2}, "stages": [{"status": 200}]}`, "list.per_page", "unknown field"},
		{`{"list": [1, 2], "stages": [{"status": 200}]}`, "list", "total"},
		{`[{"stages": [{"status": 200}]}, {"route": "/l", "list": {"total": 1.5}, "stages": [{"status": 200}]}]`, "[1].list.total", "whole number"},
	}
	for _, c := range cases {
		_, err := Parse([]byte(c.in))
		be, ok := err.(*badinput.Error)
		if !ok {
			t.Errorf("%s: err = %v, want a *badinput.Error", c.in, err)
			continue
		}
		if be.Field != c.field || !strings.Contains(be.Error(), c.msg) {
			t.Errorf("%s:\n got field %q: %v\nwant field %q containing %q", c.in, be.Field, err, c.field, c.msg)
		}
	}
}
