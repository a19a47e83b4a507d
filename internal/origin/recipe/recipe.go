package recipe

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/url"
	"regexp"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/loadlab/loadlab/internal/badinput"
	"github.com/loadlab/loadlab/internal/routepath"
)

// DefaultRoute is the route of a recipe that names none: every path.
const DefaultRoute = "/*"

// MaxStages caps the stages of one recipe.
const MaxStages = 10000

// Recipe is one validated route recipe.
type Recipe struct {
	Route     string     // "/news" (exact) or "/news*" (prefix)
	Origin    string     // URL to fetch once at load time, or ""
	BodyParts []BodyPart // the body with its <<size>> placeholders, or nil
	HasBody   bool       // a body (possibly empty) was given
	// RandomMin and RandomMax give the random_content size range in bytes;
	// HasRandom says whether random_content was given.
	RandomMin, RandomMax int64
	HasRandom            bool
	Headers              map[string]string // sent on every response
	Gzip                 bool              // headers say content-encoding: gzip
	Stages               []Stage           // sorted by At
	Echo                 Echo              // the recipe as current_recipe shows it
	// Auth and List are loadlab extensions (auth.go): a route that issues
	// or requires a token, a route answering pages of a JSON list.
	Auth Auth
	List *List
}

// BodyPart is literal text, or Random bytes of random text when Random > 0.
type BodyPart struct {
	Text   string
	Random int64
}

// Stage is the behaviour of a route from At after the recipe was loaded.
type Stage struct {
	At      time.Duration
	Status  StatusMix
	Latency Latency
	Faults  Faults
	// Contention slows the latency with the requests in service.
	Contention Contention
}

// Echo is a recipe shaped as origin_simulator returns it from
// /_admin/current_recipe: all six fields, null when unset, stages verbatim.
type Echo struct {
	Route         string            `json:"route"`
	Origin        *string           `json:"origin"`
	Body          *string           `json:"body"`
	RandomContent *string           `json:"random_content"`
	Headers       map[string]string `json:"headers"`
	Stages        []json.RawMessage `json:"stages"`
	// Auth and List are loadlab's extensions, shown only when set, so an
	// origin_simulator recipe echoes exactly as it does there.
	Auth string `json:"auth,omitempty"`
	List *List  `json:"list,omitempty"`
}

var recipeFields = []string{"route", "stages", "headers", "body", "random_content", "origin", "auth", "list"}
var stageFields = []string{"at", "status", "latency", "faults", "contention"}

// Parse reads a recipe file: one recipe object or an array of them. The
// errors are *badinput.Error values naming the field and value; the caller
// fills in the file name.
func Parse(data []byte) ([]Recipe, error) {
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) == 0 {
		return nil, badinput.Errorf("empty recipe: want a recipe object or an array of recipes")
	}
	var probe any
	if err := json.Unmarshal(data, &probe); err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			return nil, &badinput.Error{Line: lineOf(data, se.Offset), Msg: "not valid JSON: " + se.Error()}
		}
		return nil, &badinput.Error{Msg: "not valid JSON: " + err.Error()}
	}
	switch trimmed[0] {
	case '{':
		r, err := parseRecipe(trimmed, "")
		if err != nil {
			return nil, err
		}
		return []Recipe{r}, nil
	case '[':
		var items []json.RawMessage
		if err := json.Unmarshal(trimmed, &items); err != nil {
			return nil, &badinput.Error{Msg: "not valid JSON: " + err.Error()}
		}
		if len(items) == 0 {
			return nil, badinput.Errorf("empty array: want at least one recipe")
		}
		out := make([]Recipe, 0, len(items))
		seen := map[string]int{}
		for i, it := range items {
			prefix := "[" + itoa(i) + "]"
			r, err := parseRecipe(it, prefix)
			if err != nil {
				return nil, err
			}
			if j, dup := seen[r.Route]; dup {
				return nil, bad(prefix+".route", jsonString(r.Route), "route already defined by [%d]", j)
			}
			seen[r.Route] = i
			out = append(out, r)
		}
		return out, nil
	default:
		return nil, bad("", trimmed[:min(len(trimmed), 20)], "want a recipe object or an array of recipes")
	}
}

func join(prefix, field string) string {
	if prefix == "" {
		return field
	}
	return prefix + "." + field
}

func parseRecipe(raw json.RawMessage, prefix string) (Recipe, error) {
	var r Recipe
	if kind(raw) != '{' {
		f := prefix
		if f == "" {
			f = "recipe"
		}
		return r, bad(f, raw, "want a recipe object")
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		return r, bad(prefix, raw, "want a recipe object")
	}
	for k := range m {
		if !slices.Contains(recipeFields, k) {
			return r, bad(join(prefix, k), m[k], "unknown field (known: %s)", strings.Join(recipeFields, ", "))
		}
	}
	r.Route = DefaultRoute
	if v, ok := present(m, "route"); ok {
		s, err := str(v, join(prefix, "route"))
		if err != nil {
			return r, err
		}
		if msg := checkRoute(s); msg != "" {
			return r, bad(join(prefix, "route"), v, "%s", msg)
		}
		r.Route = s
	}
	r.Echo.Route = r.Route
	r.Echo.Headers = map[string]string{}

	sources := 0
	if v, ok := present(m, "origin"); ok {
		f := join(prefix, "origin")
		s, err := str(v, f)
		if err != nil {
			return r, err
		}
		u, perr := url.Parse(s)
		if perr != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return r, bad(f, v, "want an http:// or https:// URL")
		}
		r.Origin, r.Echo.Origin = s, &s
		sources++
	}
	if v, ok := present(m, "body"); ok {
		f := join(prefix, "body")
		s, err := str(v, f)
		if err != nil {
			return r, err
		}
		parts, err := splitBody(s, f)
		if err != nil {
			return r, err
		}
		r.BodyParts, r.HasBody, r.Echo.Body = parts, true, &s
		sources++
	}
	if v, ok := present(m, "random_content"); ok {
		f := join(prefix, "random_content")
		s, err := str(v, f)
		if err != nil {
			return r, err
		}
		lo, hi, perr := ParseSizeRange(s)
		if perr != nil {
			return r, bad(f, v, "%v", perr)
		}
		r.RandomMin, r.RandomMax, r.HasRandom, r.Echo.RandomContent = lo, hi, true, &s
		sources++
	}
	if sources > 1 {
		return r, bad(join(prefix, "origin"), nil, "give only one of origin, body and random_content")
	}
	if v, ok := present(m, "headers"); ok {
		h, gz, err := parseHeaders(v, join(prefix, "headers"))
		if err != nil {
			return r, err
		}
		r.Headers, r.Gzip, r.Echo.Headers = h, gz, h
	}
	if err := parseExtensions(&r, m, prefix, sources); err != nil {
		return r, err
	}
	f := join(prefix, "stages")
	v, ok := present(m, "stages")
	if !ok {
		return r, bad(f, nil, "missing: want an array of stages, e.g. [{\"at\": 0, \"status\": 200, \"latency\": \"100ms\"}]")
	}
	if kind(v) != '[' {
		return r, bad(f, v, "want an array of stages")
	}
	var items []json.RawMessage
	if err := json.Unmarshal(v, &items); err != nil {
		return r, bad(f, v, "want an array of stages")
	}
	if len(items) == 0 {
		return r, bad(f, v, "want at least one stage")
	}
	if len(items) > MaxStages {
		return r, bad(f, nil, "more than %d stages", MaxStages)
	}
	for i, it := range items {
		st, err := parseStage(it, f+"["+itoa(i)+"]")
		if err != nil {
			return r, err
		}
		r.Stages = append(r.Stages, st)
		var b bytes.Buffer
		_ = json.Compact(&b, it)
		r.Echo.Stages = append(r.Echo.Stages, json.RawMessage(b.Bytes()))
	}
	sort.SliceStable(r.Stages, func(i, j int) bool { return r.Stages[i].At < r.Stages[j].At })
	return r, nil
}

// checkRoute returns what is wrong with a route, or "".
func checkRoute(s string) string {
	switch {
	case !strings.HasPrefix(s, "/"):
		return "want a path starting with \"/\", e.g. \"/news\" or \"/news*\""
	case routepath.InnerStar(s):
		return "\"*\" may only end a route (prefix match)"
	case len(s) > 2048:
		return "longer than 2048 characters"
	case strings.ContainsAny(s, " \t\r\n?#"):
		return "a route is a path: no spaces, \"?\" or \"#\""
	case strings.HasPrefix(s, "/_admin/") || s == "/_admin":
		return "routes under /_admin are the admin API"
	}
	return ""
}

var placeholder = regexp.MustCompile(`<<(.+?)>>`)

// splitBody cuts a body at its <<size>> placeholders.
func splitBody(s, field string) ([]BodyPart, error) {
	var parts []BodyPart
	total := int64(0)
	last := 0
	for _, loc := range placeholder.FindAllStringSubmatchIndex(s, -1) {
		tag := s[loc[2]:loc[3]]
		n, err := ParseSize(tag)
		if err != nil {
			return nil, bad(field, jsonString("<<"+tag+">>"), "bad size placeholder: %v", err)
		}
		if loc[0] > last {
			parts = append(parts, BodyPart{Text: s[last:loc[0]]})
		}
		parts = append(parts, BodyPart{Random: n})
		total += n
		last = loc[1]
	}
	if last < len(s) {
		parts = append(parts, BodyPart{Text: s[last:]})
	}
	total += int64(len(s))
	if total > MaxBodySize {
		return nil, bad(field, nil, "expands to more than the %d MB limit", MaxBodySize>>20)
	}
	return parts, nil
}

// parseHeaders reads the headers object.
func parseHeaders(raw json.RawMessage, field string) (map[string]string, bool, error) {
	if kind(raw) != '{' {
		return nil, false, bad(field, raw, "want an object of header names to string values")
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, false, bad(field, raw, "want an object of header names to string values")
	}
	out := make(map[string]string, len(m))
	gz := false
	for k, v := range m {
		f := field + "." + k
		if !validHeaderName(k) {
			return nil, false, bad(f, jsonString(k), "not a valid header name")
		}
		if kind(v) == 'n' {
			continue
		}
		s, err := str(v, f)
		if err != nil {
			return nil, false, err
		}
		if strings.ContainsAny(s, "\r\n\x00") {
			return nil, false, bad(f, v, "header values may not contain line breaks or NUL")
		}
		switch strings.ToLower(k) {
		case "content-length", "transfer-encoding":
			return nil, false, bad(f, v, "set by the simulator; remove it from the recipe")
		case "content-encoding":
			switch strings.ToLower(strings.TrimSpace(s)) {
			case "gzip":
				gz = true
			case "identity", "":
			default:
				return nil, false, bad(f, v, "only gzip is supported (the body is compressed at load time)")
			}
		}
		out[k] = s
	}
	return out, gz, nil
}

// validHeaderName reports whether s is an RFC 9110 token.
func validHeaderName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' {
			continue
		}
		if !strings.ContainsRune("!#$%&'*+-.^_`|~", rune(c)) {
			return false
		}
	}
	return true
}
