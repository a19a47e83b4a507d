package recipe

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"
)

// Auth is what a route does with tokens: a loadlab extension of
// origin_simulator's recipes, for user journeys that log in first.
type Auth int

// The auth modes of a route.
const (
	AuthNone    Auth = iota // no token involved (origin_simulator's routes)
	AuthIssue               // every 2xx answer issues a new token
	AuthRequire             // a request without a valid token is answered 401
)

// MaxListTotal caps a list route's items; MaxListPageSize its page size.
const (
	MaxListTotal    = 1_000_000
	MaxListPageSize = 1000
)

// DefaultListPageSize is the page size of a list route that names none.
const DefaultListPageSize = 10

// List makes a route answer pages of a generated JSON list (a loadlab
// extension): Total items, PageSize per page, the page picked by the
// request's ?page= query (from 1).
type List struct {
	Total    int `json:"total"`
	PageSize int `json:"page_size"`
}

var listFields = []string{"total", "page_size"}

// parseAuth reads the auth field: "issue" or "require".
func parseAuth(v json.RawMessage, field string) (Auth, error) {
	s, err := str(v, field)
	if err != nil {
		return AuthNone, bad(field, v, "want \"issue\" (the route hands out tokens) or \"require\" (the route refuses requests without one)")
	}
	switch s {
	case "issue":
		return AuthIssue, nil
	case "require":
		return AuthRequire, nil
	}
	return AuthNone, bad(field, v, "want \"issue\" (the route hands out tokens) or \"require\" (the route refuses requests without one)")
}

// parseList reads the list field, e.g. {"total": 50, "page_size": 10}.
func parseList(v json.RawMessage, field string) (*List, error) {
	m, err := object(v, field, "want an object such as {\"total\": 50, \"page_size\": 10}")
	if err != nil {
		return nil, err
	}
	for k := range m {
		if !slices.Contains(listFields, k) {
			return nil, bad(field+"."+k, m[k], "unknown field (known: %s)", strings.Join(listFields, ", "))
		}
	}
	l := &List{PageSize: DefaultListPageSize}
	tv, ok := present(m, "total")
	if !ok {
		return nil, bad(field+".total", nil, "missing: want the number of items, e.g. 50")
	}
	if l.Total, err = count(tv, field+".total", 0, MaxListTotal); err != nil {
		return nil, err
	}
	if pv, ok := present(m, "page_size"); ok {
		if l.PageSize, err = count(pv, field+".page_size", 1, MaxListPageSize); err != nil {
			return nil, err
		}
	}
	return l, nil
}

// count reads a whole number from lo to hi.
func count(v json.RawMessage, field string, lo, hi int) (int, error) {
	n, err := strconv.Atoi(strings.TrimSpace(string(v)))
	if kind(v) != '0' || err != nil || n < lo || n > hi {
		return 0, bad(field, v, "want a whole number from %d to %d", lo, hi)
	}
	return n, nil
}

// parseExtensions reads the loadlab fields auth and list into r, and
// refuses the combinations they cannot serve: their answers are made per
// request, so they take no body of their own and no gzip.
func parseExtensions(r *Recipe, m map[string]json.RawMessage, prefix string, sources int) error {
	if v, ok := present(m, "auth"); ok {
		a, err := parseAuth(v, join(prefix, "auth"))
		if err != nil {
			return err
		}
		r.Auth = a
		s, _ := str(v, "")
		r.Echo.Auth = s
	}
	if v, ok := present(m, "list"); ok {
		l, err := parseList(v, join(prefix, "list"))
		if err != nil {
			return err
		}
		r.List = l
		r.Echo.List = l
	}
	generated := ""
	switch {
	case r.Auth == AuthIssue && r.List != nil:
		return bad(join(prefix, "list"), nil, "a route that issues tokens answers with the token: give list on another route")
	case r.Auth == AuthIssue:
		generated = "auth"
	case r.List != nil:
		generated = "list"
	}
	if generated == "" {
		return nil
	}
	if sources > 0 {
		return bad(join(prefix, generated), nil, "this route's answer is made per request: remove its body, random_content or origin")
	}
	if r.Gzip {
		return bad(join(prefix, "headers"), nil, "content-encoding gzip cannot be used with %s (its answer is made per request)", generated)
	}
	return nil
}
