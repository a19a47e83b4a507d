package origin

import (
	"encoding/json"
	"net/http"
	"net/http/cookiejar"
	"strings"
	"testing"

	"github.com/loadlab/loadlab/internal/origin/recipe"
)

const authRecipe = `[
 {"route": "/login", "auth": "issue", "stages": [{"at": 0, "status": 200, "latency": "2ms"}]},
 {"route": "/api*", "auth": "require", "body": "{\"ok\":true}", "stages": [{"at": 0, "status": 200, "latency": 0}]},
 {"route": "/items", "auth": "require", "list": {"total": 45, "page_size": 20}, "stages": [{"at": 0, "status": 200, "latency": 0}]},
 {"route": "/open", "list": {"total": 3}, "stages": [{"at": 0, "status": 200, "latency": 0}]},
 {"route": "/down", "auth": "issue", "stages": [{"at": 0, "status": 503, "latency": 0}]}
]`

func login(t *testing.T, url string) string {
	t.Helper()
	r := do(t, http.MethodPost, url+"/login", `{"user":"ann","password":"x"}`, "Content-Type", "application/json")
	if r.err != nil || r.status != 200 {
		t.Fatalf("login: %d %v %s", r.status, r.err, r.body)
	}
	var got struct{ Token string }
	if err := json.Unmarshal(r.body, &got); err != nil || got.Token == "" {
		t.Fatalf("login body %q: %v", r.body, err)
	}
	if ct := r.header.Get("Content-Type"); ct != "application/json; charset=utf-8" {
		t.Errorf("login content-type %q", ct)
	}
	if c := r.header.Get("Set-Cookie"); !strings.HasPrefix(c, SessionCookie+"="+got.Token+";") {
		t.Errorf("login set-cookie %q, want the token %s", c, got.Token)
	}
	if r.header.Get("Content-Length") != itoa(len(r.body)) {
		t.Errorf("content-length %q for %d bytes", r.header.Get("Content-Length"), len(r.body))
	}
	return got.Token
}

// forge changes the last digit of a token's MAC.
func forge(tok string) string {
	last := "0"
	if strings.HasSuffix(tok, "0") {
		last = "1"
	}
	return tok[:len(tok)-1] + last
}

func TestTokenRoutes(t *testing.T) {
	sim, srv := newTestServer(t, Options{})
	mustLoad(t, srv, authRecipe)
	tok := login(t, srv.URL)
	if tok2 := login(t, srv.URL); tok2 == tok {
		t.Errorf("two logins got the same token %s", tok)
	}
	for _, c := range []struct {
		name string
		hdr  []string
		want int
	}{
		{"none", nil, 401},
		{"bearer", []string{"Authorization", "Bearer " + tok}, 200},
		{"lowercase scheme", []string{"Authorization", "bearer " + tok}, 200},
		{"cookie", []string{"Cookie", SessionCookie + "=" + tok}, 200},
		{"forged mac", []string{"Authorization", "Bearer " + forge(tok)}, 401},
		{"made up", []string{"Authorization", "Bearer 1.00000000000000000000000000000000"}, 401},
		{"basic", []string{"Authorization", "Basic " + tok}, 401},
		{"other cookie", []string{"Cookie", "session=" + tok}, 401},
	} {
		r := get(t, srv.URL+"/api/profile", c.hdr...)
		if r.err != nil || r.status != c.want {
			t.Errorf("%s: %d %v %s, want %d", c.name, r.status, r.err, r.body, c.want)
			continue
		}
		if c.want == 401 && (r.header.Get("Www-Authenticate") == "" || !strings.Contains(string(r.body), "missing or invalid token")) {
			t.Errorf("%s: 401 answer %v %s", c.name, r.header, r.body)
		}
		if c.want == 200 && string(r.body) != `{"ok":true}` {
			t.Errorf("%s: body %s", c.name, r.body)
		}
	}
	// A token of a simulator with another seed is refused.
	_, other := newTestServer(t, Options{Seed: 7})
	mustLoad(t, other, authRecipe)
	if r := get(t, srv.URL+"/api/x", "Authorization", "Bearer "+login(t, other.URL)); r.status != 401 {
		t.Errorf("another simulator's token: %d", r.status)
	}
	// A login in a failing stage issues nothing.
	if r := do(t, http.MethodPost, srv.URL+"/down", ""); r.status != 503 || r.header.Get("Set-Cookie") != "" || string(r.body) != "Error 503" {
		t.Errorf("failing login: %d %v %q", r.status, r.header, r.body)
	}
	// Tokens stay good across a reload of the recipe.
	mustLoad(t, srv, authRecipe)
	if r := get(t, srv.URL+"/api/x", "Authorization", "Bearer "+tok); r.status != 200 {
		t.Errorf("after reload: %d", r.status)
	}
	var counts map[string]int
	if err := json.Unmarshal(get(t, srv.URL+"/_admin/current_count").body, &counts); err != nil || counts["401"] < 6 {
		t.Errorf("current_count = %v (%v), want the 401s counted", counts, err)
	}
	_ = sim
}

// A browser-like client logs in and browses with the cookie alone.
func TestTokenCookieJar(t *testing.T) {
	_, srv := newTestServer(t, Options{})
	mustLoad(t, srv, authRecipe)
	jar, _ := cookiejar.New(nil)
	c := &http.Client{Jar: jar, Transport: client.Transport, Timeout: client.Timeout}
	for i, path := range []string{"/api/home", "/login", "/api/home"} {
		method := http.MethodGet
		if path == "/login" {
			method = http.MethodPost
		}
		req, _ := http.NewRequest(method, srv.URL+path, nil)
		resp, err := c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		want := []int{401, 200, 200}[i]
		if resp.StatusCode != want {
			t.Errorf("request %d %s: %d, want %d", i, path, resp.StatusCode, want)
		}
	}
}

func TestListRoute(t *testing.T) {
	_, srv := newTestServer(t, Options{})
	mustLoad(t, srv, authRecipe)
	auth := []string{"Authorization", "Bearer " + login(t, srv.URL)}
	type page struct {
		Page     int
		PageSize int `json:"page_size"`
		Total    int
		Items    []struct {
			ID   int
			Name string
		}
		Next *string
	}
	read := func(url string) page {
		t.Helper()
		r := get(t, url, auth...)
		if r.status != 200 || r.header.Get("Content-Type") != "application/json; charset=utf-8" {
			t.Fatalf("%s: %d %v %s", url, r.status, r.header, r.body)
		}
		var p page
		if err := json.Unmarshal(r.body, &p); err != nil {
			t.Fatalf("%s: %v in %s", url, err, r.body)
		}
		return p
	}
	p := read(srv.URL + "/items")
	if p.Page != 1 || p.PageSize != 20 || p.Total != 45 || len(p.Items) != 20 || p.Items[0].ID != 1 || p.Items[19].Name != "item-20" || p.Next == nil || *p.Next != "/items?page=2" {
		t.Errorf("page 1 = %+v", p)
	}
	// Follow next to the end: every item once.
	seen := 0
	for url, n := srv.URL+"/items", 0; n < 10; n++ {
		p := read(url)
		for _, it := range p.Items {
			seen++
			if it.ID != seen {
				t.Fatalf("item %d where %d was due", it.ID, seen)
			}
		}
		if p.Next == nil {
			break
		}
		url = srv.URL + *p.Next
	}
	if seen != 45 {
		t.Errorf("followed next through %d items, want 45", seen)
	}
	if p := read(srv.URL + "/items?page=9"); len(p.Items) != 0 || p.Next != nil || p.Page != 9 {
		t.Errorf("page past the end = %+v", p)
	}
	if p := read(srv.URL + "/items?page=9223372036854775807"); len(p.Items) != 0 {
		t.Errorf("huge page = %+v", p)
	}
	if r := get(t, srv.URL+"/items?page=0", auth...); r.status != 400 || !strings.Contains(string(r.body), "page") {
		t.Errorf("page=0: %d %s", r.status, r.body)
	}
	if r := get(t, srv.URL+"/items"); r.status != 401 {
		t.Errorf("list without a token: %d", r.status)
	}
	if r := get(t, srv.URL+"/open"); r.status != 200 || !strings.Contains(string(r.body), `"total":3`) {
		t.Errorf("open list: %d %s", r.status, r.body)
	}
}

// FuzzListBody: every page of every list is valid JSON holding the items
// due on it, and a token is valid only as issued.
func FuzzListBody(f *testing.F) {
	f.Add(45, 20, 3, "/items", "x.y")
	f.Add(0, 1, 1, "/a\"b", "")
	f.Fuzz(func(t *testing.T, total, size, page int, path, tok string) {
		total = min(max(total, 0), recipe.MaxListTotal)
		size = min(max(size, 1), recipe.MaxListPageSize)
		page = max(page, 1)
		var p struct {
			Items []struct{ ID int }
			Next  *string
		}
		b := listBody(&recipe.List{Total: total, PageSize: size}, page, path)
		if err := json.Unmarshal(b, &p); err != nil {
			t.Fatalf("%s: %v", b, err)
		}
		first := (page-1)*size + 1
		if page > total {
			first = total + 1
		}
		want := max(0, min(size, total-first+1))
		if len(p.Items) != want || (want > 0 && p.Items[0].ID != first) || (p.Next != nil) != (first+size-1 < total) {
			t.Fatalf("page %d of %d by %d: %s", page, total, size, b)
		}
		toks := newTokens(1)
		if toks.valid(tok) && !strings.Contains(tok, ".") {
			t.Fatalf("token %q accepted", tok)
		}
		if good := toks.issue(); !toks.valid(good) || newTokens(2).valid(good) {
			t.Fatalf("token %q: valid %v, valid under another seed %v", good, toks.valid(good), newTokens(2).valid(good))
		}
	})
}
