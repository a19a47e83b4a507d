package site

import (
	"fmt"
	"html/template"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"

	"github.com/loadlab/loadlab/internal/archive"
	"github.com/loadlab/loadlab/internal/badinput"
	"github.com/loadlab/loadlab/internal/load"
	"github.com/loadlab/loadlab/internal/plot/web"
)

// The index's sortable columns: query value, column title, what the
// column means (its tooltip), and whether its first click sorts
// ascending (names) or descending (figures, time).
var sortColumns = []struct {
	Key, Title, Means string
	Asc               bool
}{
	{"started", "started", "", false},
	{"name", "name", "", true},
	{"requests", "requests", "", false},
	{"load", "load", loadMeans, false},
	{"success", "success", "", false},
	{"p50", "p50", "", false},
	{"p99", "p99", "", false},
	{"throughput", "throughput", "successful answers a second", false},
}

// loadMeans says what the load column holds and how it sorts.
const loadMeans = "what the run was asked to send: a rate (100/s), or a closed loop's users (4-16 users), whose rate is what they achieved; " +
	"sorted, the paced runs come by rate, the closed loops by users"

// sortAliases are sort values the index once had, read as the column that
// replaced them: the rate column became the load column.
var sortAliases = map[string]string{"rate": "load"}

// Paging: runs per page by default and at most.
const (
	defaultPerPage = 50
	maxPerPage     = 500
)

// listQuery is the index's query: filter, order and page.
type listQuery struct {
	Name   string
	Labels map[string]string
	Sort   string
	Asc    bool
	Page   int
	Per    int
}

// labelStart finds where a key=value label begins in a filter: at the
// start or after a space, a label key and =.
var labelStart = regexp.MustCompile(`(?:^|\s)([A-Za-z0-9._/-]+)=`)

// parseLabels reads label=k=v parameters (each may hold several,
// space-separated) into a map. A value may hold spaces (team=search
// infra): a label ends where the next key= begins.
func parseLabels(q url.Values) (map[string]string, error) {
	out := map[string]string{}
	for _, v := range q["label"] {
		v = strings.TrimSpace(v)
		if v == "" {
			continue
		}
		at := labelStart.FindAllStringSubmatchIndex(v, -1)
		if len(at) == 0 || strings.TrimSpace(v[:at[0][0]]) != "" {
			first := v
			if len(at) > 0 {
				first = v[:at[0][0]]
			}
			_, _, err := archive.ParseLabel(strings.TrimSpace(first))
			return nil, badinput.Field("label", "%v", err)
		}
		for i, m := range at {
			end := len(v)
			if i+1 < len(at) {
				end = at[i+1][0]
			}
			k, val, err := archive.ParseLabel(v[m[2]:m[3]] + "=" + strings.TrimSpace(v[m[1]:end]))
			if err != nil {
				return nil, badinput.Field("label", "%v", err)
			}
			out[k] = val
		}
	}
	return out, nil
}

func parseListQuery(q url.Values) (listQuery, error) {
	lq := listQuery{Name: strings.TrimSpace(q.Get("name")), Sort: "started", Page: 1, Per: defaultPerPage}
	var err error
	if lq.Labels, err = parseLabels(q); err != nil {
		return lq, err
	}
	if s := q.Get("sort"); s != "" {
		if a, ok := sortAliases[s]; ok {
			s = a
		}
		ok := false
		for _, c := range sortColumns {
			ok = ok || c.Key == s
		}
		if !ok {
			return lq, badinput.Field("sort", "unknown column %q", s)
		}
		lq.Sort = s
	}
	switch q.Get("order") {
	case "", "desc":
	case "asc":
		lq.Asc = true
	default:
		return lq, badinput.Field("order", "want asc or desc, got %q", q.Get("order"))
	}
	for _, p := range []struct {
		name string
		to   *int
		max  int
	}{{"page", &lq.Page, 1 << 30}, {"per", &lq.Per, maxPerPage}} {
		if s := q.Get(p.name); s != "" {
			n, err := strconv.Atoi(s)
			if err != nil || n < 1 || n > p.max {
				return lq, badinput.Field(p.name, "want a whole number from 1 to %d, got %q", p.max, s)
			}
			*p.to = n
		}
	}
	return lq, nil
}

// url is the index's address for lq with changes applied.
func (lq listQuery) url(change func(*listQuery)) string {
	c := lq
	c.Labels = lq.Labels
	if change != nil {
		change(&c)
	}
	q := url.Values{}
	if c.Name != "" {
		q.Set("name", c.Name)
	}
	if len(c.Labels) > 0 {
		q.Set("label", joinLabels(c.Labels))
	}
	if c.Sort != "started" {
		q.Set("sort", c.Sort)
	}
	if c.Asc {
		q.Set("order", "asc")
	}
	if c.Page > 1 {
		q.Set("page", strconv.Itoa(c.Page))
	}
	if c.Per != defaultPerPage {
		q.Set("per", strconv.Itoa(c.Per))
	}
	if len(q) == 0 {
		return "/"
	}
	return "/?" + q.Encode()
}

var indexTmpl = template.Must(template.New("index").Parse(`<form class="filter" method="get" action="/">
<label>name contains<input type="search" name="name" value="{{.Q.Name}}" placeholder="e.g. search"></label>
<label>labels (key=value …)<input type="search" name="label" value="{{.LabelText}}" placeholder="e.g. build=04-feb"></label>
{{if ne .Q.Sort "started"}}<input type="hidden" name="sort" value="{{.Q.Sort}}">{{end}}{{if .Q.Asc}}<input type="hidden" name="order" value="asc">{{end}}
<button type="submit">Filter</button>{{if or .Q.Name .Q.Labels}} <a href="{{.Clear}}">clear</a>{{end}}
</form>
<p class="pager">{{if .Total}}<span>runs {{.From}}–{{.To}} of {{.Total}}</span>{{else}}<span class="empty">no run matches{{if not (or .Q.Name .Q.Labels)}}: add one with loadlab archive add{{end}}</span>{{end}}
{{with .Newer}}<a href="{{.}}" rel="prev">‹ previous</a>{{end}}{{with .Older}}<a href="{{.}}" rel="next">next ›</a>{{end}}</p>
{{if .Runs}}<form method="get" action="/compare">
<div class="tw"><table class="runs">
<thead><tr><th></th><th>run</th>{{range .Cols}}<th{{with .Means}} title="{{.}}"{{end}}><a href="{{.URL}}"{{if .On}} class="on"{{end}}>{{.Title}}{{.Arrow}}</a></th>{{end}}<th>labels</th></tr></thead>
<tbody>{{range .Runs}}<tr><td><input type="checkbox" name="id" value="{{.ID}}" aria-label="compare {{.ID}}"></td><td><a href="{{.URL}}"><code>{{.ID}}</code></a></td>
<td>{{.Started}}</td><td><a href="{{.URL}}">{{.Name}}</a>{{with .Noisy}} <span class="noisy" title="noisy: {{.}}">noisy</span>{{end}}</td><td>{{.Requests}}</td><td>{{.Load}}</td><td>{{.Success}}</td><td>{{.P50}}</td><td>{{.P99}}</td><td>{{.Throughput}}</td>
<td>{{range .Labels}}<a class="label" href="{{.URL}}">{{.Key}}={{.Value}}</a>{{with .Source}}<a class="source" href="{{.}}" rel="noopener noreferrer" title="where this value comes from">↗</a>{{end}}{{end}}</td></tr>
{{end}}</tbody></table></div>
<p><button type="submit">Compare the runs ticked</button> <span class="hint">tick two or more</span></p>
</form>{{end}}`))

type indexRow struct {
	ID, URL, Name, Started                        string
	Requests, Load, Success, P50, P99, Throughput string
	Labels                                        []labelView
	Noisy                                         string // why the machine made the run noisy ("": it did not)
}

// index lists the runs.
func (h *Handler) index(w http.ResponseWriter, r *http.Request) {
	lq, err := parseListQuery(r.URL.Query())
	if err != nil {
		failure(w, err)
		return
	}
	runs, total, err := h.store.List(r.Context(), archive.Filter{Name: lq.Name, Labels: lq.Labels, Sort: lq.Sort, Asc: lq.Asc,
		Limit: lq.Per, Offset: (lq.Page - 1) * lq.Per})
	if err != nil {
		failure(w, err)
		return
	}
	data := map[string]any{"Q": lq, "LabelText": joinLabels(lq.Labels), "Total": total,
		"Clear": lq.url(func(c *listQuery) { c.Name, c.Labels, c.Page = "", nil, 1 })}
	if total > 0 {
		from := (lq.Page-1)*lq.Per + 1
		data["From"], data["To"] = from, min(from+len(runs)-1, total)
		if from > total {
			data["From"], data["To"] = total, total
		}
	}
	if lq.Page > 1 {
		data["Newer"] = lq.url(func(c *listQuery) { c.Page = min(c.Page-1, max(1, (total+c.Per-1)/c.Per)) })
	}
	if lq.Page*lq.Per < total {
		data["Older"] = lq.url(func(c *listQuery) { c.Page++ })
	}
	type col struct {
		Title, Means, URL, Arrow string
		On                       bool
	}
	var cols []col
	for _, c := range sortColumns {
		on := lq.Sort == c.Key
		asc := c.Asc
		if on {
			asc = !lq.Asc // a second click reverses
		}
		cl := col{Title: c.Title, Means: c.Means, On: on, URL: lq.url(func(q *listQuery) { q.Sort, q.Asc, q.Page = c.Key, asc, 1 })}
		if on {
			cl.Arrow = " ↓"
			if lq.Asc {
				cl.Arrow = " ↑"
			}
		}
		cols = append(cols, cl)
	}
	data["Cols"] = cols
	rows := make([]indexRow, len(runs))
	for i, run := range runs {
		l := run.Latencies
		rows[i] = indexRow{ID: run.ID, URL: runURL(run.ID), Name: run.Name, Started: fmtTime(run.Started),
			Requests: fmt.Sprint(run.Requests), Load: run.Load().String(), Success: fmtPct(run.Success),
			P50: fmtDur(l.P50), P99: fmtDur(l.P99), Throughput: load.FmtPerSecond(run.Throughput), Noisy: noisyWhy(run.Health)}
		for _, lb := range sortedLabels(run.Labels) {
			u := lq.url(func(q *listQuery) {
				m := map[string]string{}
				for k, v := range q.Labels {
					m[k] = v
				}
				m[lb.Key] = lb.Value
				q.Labels, q.Page = m, 1
			})
			rows[i].Labels = append(rows[i].Labels, labelView{lb.Key, lb.Value, u, h.sourceURL(lb.Key, lb.Value)})
		}
	}
	data["Runs"] = rows
	body, err := fragment(indexTmpl, data)
	if err != nil {
		failure(w, err)
		return
	}
	p := newPage("Runs")
	p.Intro = "Every archived run, newest first. Click a column to sort by it, a label to filter by it; tick runs to compare them. " +
		"Load is what a run was asked to send: a rate (100/s), or a closed loop's users (4-16 users), each sending its next request when its answer came: " +
		"their throughput is the figure to read. By load, the paced runs come by rate, then the closed loops by users. " +
		"A run marked noisy was disturbed by its machine (its own schedule lag a large share of its p99, a hypervisor's steal, or a saturated load generator): its figures are weaker evidence."
	p.Sections = []web.Section{{HTML: body}}
	writePage(w, http.StatusOK, p)
}
