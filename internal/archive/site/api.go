package site

import (
	"encoding/json"
	"net/http"
	"strconv"
	"strings"

	"github.com/loadlab/loadlab/internal/archive"
	"github.com/loadlab/loadlab/internal/archive/trend"
	"github.com/loadlab/loadlab/internal/badinput"
)

// The API serves what dashboards read, in the shapes the command line
// prints them (one shape each):
//
//	/api/runs             `archive list -type json` (label, name, sort, asc, limit, offset)
//	/api/runs/ID          `archive show -type json`
//	/api/trend            `archive trend -type json` (metric, by, scenario, label, since, last)

// apiRuns serves the runs the query selects, as archive list -type json.
func (h *Handler) apiRuns(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	f := archive.Filter{Name: strings.TrimSpace(q.Get("name")), Sort: q.Get("sort"), Asc: q.Get("asc") == "true" || q.Get("asc") == "1"}
	var err error
	if f.Labels, err = parseLabels(q); err != nil {
		failure(w, err)
		return
	}
	for key, dst := range map[string]*int{"limit": &f.Limit, "offset": &f.Offset} {
		if s := q.Get(key); s != "" {
			n, err := strconv.Atoi(s)
			if err != nil || n < 0 {
				failure(w, badinput.Field(key, "%q: want a whole number, 0 or more", s))
				return
			}
			*dst = n
		}
	}
	runs, _, err := h.store.List(r.Context(), f)
	if err != nil {
		failure(w, err)
		return
	}
	writeJSON(w, runs)
}

// apiRun serves one run with its files, as archive show -type json.
func (h *Handler) apiRun(w http.ResponseWriter, r *http.Request) {
	run, err := h.store.Get(r.Context(), r.PathValue("id"))
	if err != nil {
		failure(w, err)
		return
	}
	files, err := h.store.Files(r.Context(), run.ID)
	if err != nil {
		failure(w, err)
		return
	}
	writeJSON(w, archive.RunDetail{Run: run, Files: files})
}

// apiTrend serves a trend as archive trend -type json: its points, change
// points and the gate's verdict on the newest build. While the trend is
// being computed it answers 202 Accepted with Retry-After.
func (h *Handler) apiTrend(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	tq, err := parseTrendQuery(q)
	if err != nil {
		failure(w, err)
		return
	}
	o := trend.Options{Metric: tq.Metric, By: tq.By, Scenario: tq.Scenario, Labels: tq.Labels, Since: strings.TrimSpace(q.Get("since"))}
	if s := q.Get("last"); s != "" {
		if o.Last, err = strconv.Atoi(s); err != nil || o.Last < 0 {
			failure(w, badinput.Field("last", "%q: want a number of builds", s))
			return
		}
	}
	t, pending, err := h.trends.get(r.Context(), h.store, o)
	if err != nil {
		failure(w, err)
		return
	}
	if pending {
		w.Header().Set("Retry-After", "5")
		http.Error(w, "the trend is being computed: ask again in a few seconds", http.StatusAccepted)
		return
	}
	if err := t.Nothing(); err != nil {
		failure(w, err)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	trend.WriteJSON(w, t)
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.Encode(v)
}
