package origin

import (
	"encoding/json"
	"errors"
	"net/http"
	"strconv"

	"github.com/loadlab/loadlab/internal/origin/recipe"
)

// This file serves the answers of loadlab's recipe extensions (see
// recipe/auth.go): the token of an issuing route, the 401 of a requiring
// route, and the pages of a list route. Their bodies are made per request.

// generated reports whether rt's 2xx answers are made per request.
func (r *route) generated() bool {
	return r.rec.Auth == recipe.AuthIssue || r.rec.List != nil
}

var unauthorizedBody = []byte(`{"error":"missing or invalid token: send the token from the login route as Authorization: Bearer TOKEN or the ` + SessionCookie + ` cookie"}`)

// refuse answers 401 to a request without a valid token, at once (a real
// service checks the token before any work), counted as a 401.
func (s *Simulator) refuse(w http.ResponseWriter, rt *route) {
	h := w.Header()
	h.Set("Content-Type", "application/json; charset=utf-8")
	h.Set("Cache-Control", defaultCacheControl)
	h.Set("Www-Authenticate", `Bearer realm="loadlab"`)
	h.Set("Content-Length", strconv.Itoa(len(unauthorizedBody)))
	s.counts.add(http.StatusUnauthorized)
	rm := s.m.forRoute(rt.name)
	s.m.request(rt.name, rm, http.StatusUnauthorized)
	w.WriteHeader(http.StatusUnauthorized)
	n, _ := w.Write(unauthorizedBody)
	rm.bytes.Add(float64(n))
}

// errBadPage is the answer to a list route's ?page= that is not a page.
var errBadPage = errors.New("page: want a page number from 1")

// listPage reads the ?page= of a list request (1 when absent).
func listPage(r *http.Request) (int, error) {
	v := r.URL.Query().Get("page")
	if v == "" {
		return 1, nil
	}
	p, err := strconv.Atoi(v)
	if err != nil || p < 1 {
		return 0, errBadPage
	}
	return p, nil
}

// generate makes the 2xx answer of an issuing or list route: its body and
// headers (the route's, with the JSON content type and, for a token, the
// session cookie).
func (s *Simulator) generate(rt *route, r *http.Request) ([]byte, http.Header) {
	h := rt.pay.okHeader.Clone()
	h.Set("Content-Type", "application/json; charset=utf-8")
	if rt.rec.Auth == recipe.AuthIssue {
		tok := s.tokens.issue()
		h.Add("Set-Cookie", SessionCookie+"="+tok+"; Path=/; HttpOnly; SameSite=Lax")
		return []byte(`{"token":"` + tok + `"}`), h
	}
	page, _ := listPage(r) // checked before the latency
	return listBody(rt.rec.List, page, r.URL.EscapedPath()), h
}

// listBody is page of l: {"page":P,"page_size":S,"total":N,"items":[{"id":I,
// "name":"item-I"},...],"next":"PATH?page=P+1" or null}. Items are
// numbered from 1; a page past the end has no items.
func listBody(l *recipe.List, page int, path string) []byte {
	b := make([]byte, 0, 64+l.PageSize*32)
	b = append(b, `{"page":`...)
	b = strconv.AppendInt(b, int64(page), 10)
	b = append(b, `,"page_size":`...)
	b = strconv.AppendInt(b, int64(l.PageSize), 10)
	b = append(b, `,"total":`...)
	b = strconv.AppendInt(b, int64(l.Total), 10)
	b = append(b, `,"items":[`...)
	first, last := int64(l.Total)+1, int64(l.Total) // past the end: none
	if page <= l.Total {
		first = int64(page-1)*int64(l.PageSize) + 1
		last = min(first+int64(l.PageSize)-1, int64(l.Total))
	}
	for id := first; id <= last; id++ {
		if id > first {
			b = append(b, ',')
		}
		b = append(b, `{"id":`...)
		b = strconv.AppendInt(b, id, 10)
		b = append(b, `,"name":"item-`...)
		b = strconv.AppendInt(b, id, 10)
		b = append(b, `"}`...)
	}
	b = append(b, `],"next":`...)
	if last < int64(l.Total) {
		next, _ := json.Marshal(path + "?page=" + strconv.Itoa(page+1))
		b = append(b, next...)
	} else {
		b = append(b, "null"...)
	}
	return append(b, '}')
}
