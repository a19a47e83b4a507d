package site

import (
	"context"
	"errors"
	"fmt"
	"html/template"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/loadlab/loadlab/internal/archive"
	"github.com/loadlab/loadlab/internal/badinput"
	"github.com/loadlab/loadlab/internal/compare"
	"github.com/loadlab/loadlab/internal/plot"
	"github.com/loadlab/loadlab/internal/plot/web"
)

// maxCompare bounds the runs on one compare page.
const maxCompare = 20

// compareSeed is the block bootstrap's seed, loadlab compare's default:
// the page's intervals are the command's (its verdicts do not depend on
// it).
const compareSeed = 1

// compareIDs reads the runs to compare: ids=a,b,c and/or id=a&id=b.
func compareIDs(r *http.Request) []string {
	q := r.URL.Query()
	var ids []string
	seen := map[string]bool{}
	for _, v := range append(q["ids"], q["id"]...) {
		for _, id := range strings.FieldsFunc(v, func(c rune) bool { return c == ',' || c == ' ' }) {
			if !seen[id] {
				seen[id] = true
				ids = append(ids, id)
			}
		}
	}
	return ids
}

var compareHeadTmpl = template.Must(template.New("cmphead").Parse(`<div class="tw"><table>
<thead><tr><th></th>{{range .Runs}}<th><a href="{{.URL}}">{{.Name}}</a></th>{{end}}</tr></thead>
<tbody><tr><td>ID</td>{{range .Runs}}<td><code>{{.ID}}</code></td>{{end}}</tr>
<tr><td>started</td>{{range .Runs}}<td>{{.Started}}</td>{{end}}</tr>
<tr><td>labels</td>{{range .Runs}}<td>{{range .Labels}}<span class="label">{{.Key}}={{.Value}}</span>{{end}}</td>{{end}}</tr>
{{range .Figures}}<tr><td>{{.Name}}</td>{{range .Cells}}<td>{{.}}</td>{{end}}</tr>
{{end}}<tr><td>machine</td>{{range .Runs}}<td>{{.Health}}{{with .Noisy}} <span class="noisy" title="noisy: {{.}}">noisy</span>{{end}}</td>{{end}}</tr>
</tbody></table></div>`))

var compareFormTmpl = template.Must(template.New("cmpform").Parse(`<form class="filter" method="get" action="/compare">
<label>run IDs, comma-separated (the first is the baseline)<input type="text" name="ids" value="{{.}}" size="40"></label>
<button type="submit">Compare</button></form>
<p class="hint">Or tick runs on the <a href="/">list of runs</a>.</p>`))

// compare serves two or more runs side by side with `loadlab compare`'s
// run-level verdicts, from their stored histograms, time blocks and
// health.
func (h *Handler) compare(w http.ResponseWriter, r *http.Request) {
	ids := compareIDs(r)
	form, _ := fragment(compareFormTmpl, strings.Join(ids, ","))
	p := newPage("Compare runs")
	if len(ids) < 2 {
		p.Intro = "Two or more runs side by side: each one's figures, and which differences from the first (the baseline) are real, judged run against run as loadlab compare judges them."
		p.Sections = []web.Section{{HTML: form}}
		status := http.StatusOK
		if len(ids) == 1 {
			status = http.StatusBadRequest
			p.Sections[0].Text = "Name at least two runs."
		}
		writePage(w, status, p)
		return
	}
	if len(ids) > maxCompare {
		failure(w, badinput.Field("ids", "at most %d runs on one page, got %d", maxCompare, len(ids)))
		return
	}
	ctx := r.Context()
	runs := make([]*archive.Run, len(ids))
	for i, id := range ids {
		run, _, err := h.lookup(ctx, id)
		if errors.Is(err, archive.ErrNotFound) {
			notFound(w, err)
			return
		}
		if err != nil {
			failure(w, err)
			return
		}
		runs[i] = run
	}
	secs, err := h.compareSections(ctx, runs)
	if err != nil {
		failure(w, err)
		return
	}
	p.Intro = "The first run is the baseline. Runs are judged, not requests, as loadlab compare judges them: each run's figure with a 99% interval from the time blocks the archive kept of it (a block bootstrap, so a pause of the machine widens the interval instead of becoming a verdict); worse or better past a 5% change (1 point of success), no difference when the interval rules that out, cannot tell otherwise. A run archived before the archive kept time blocks has no run-level evidence: its differences cannot tell. A run made on a busy machine (noisy) is not what a verdict rests on."
	if slices.ContainsFunc(runs, func(r *archive.Run) bool { return len(r.Users) > 0 }) {
		p.Intro += " A closed loop (users, each sending its next request when its answer came, rather than a rate) is judged on its throughput first: the successful answers a second its users got, the figure that tells whether the system kept up."
	}
	p.Sections = append(secs, web.Section{Title: "Compare other runs", HTML: form})
	writePage(w, http.StatusOK, p)
}

// compareSections are the side-by-side figures and, per step and
// scenario the runs share, the compare table and percentile overlay.
func (h *Handler) compareSections(ctx context.Context, runs []*archive.Run) ([]web.Section, error) {
	names := displayNames(runs)
	type col struct {
		Name, ID, URL, Started string
		Labels                 []label
		Health, Noisy          string // what the machine did to the run; why it made it noisy
	}
	type fig struct {
		Name  string
		Cells []string
	}
	var cols []col
	closed := false
	for _, run := range runs {
		closed = closed || len(run.Users) > 0
	}
	// The load first (a rate, or a closed loop's users); with a closed
	// loop among the runs, the throughput its users achieved next, as
	// compare's table leads with it.
	var order []int // figureHeader's columns, in the order shown
	if closed {
		order = append(order, slices.Index(figureHeader, "throughput"))
	}
	for i, name := range figureHeader {
		if !(closed && name == "throughput") {
			order = append(order, i)
		}
	}
	figs := []fig{{Name: "load"}}
	for _, i := range order {
		figs = append(figs, fig{Name: figureHeader[i]})
	}
	for i, run := range runs {
		cols = append(cols, col{Name: names[i], ID: run.ID, URL: runURL(run.ID), Started: fmtTime(run.Started), Labels: sortedLabels(run.Labels),
			Health: run.Health.Short(), Noisy: noisyWhy(run.Health)})
		figs[0].Cells = append(figs[0].Cells, run.Load().String())
		cells := figureCells(run.Figures)
		for j, k := range order {
			figs[j+1].Cells = append(figs[j+1].Cells, cells[k])
		}
	}
	head, err := fragment(compareHeadTmpl, map[string]any{"Runs": cols, "Figures": figs})
	if err != nil {
		return nil, err
	}
	out := []web.Section{{Title: "Side by side", HTML: head}}

	// One compare.Run per run and step/scenario. Runs of one step are
	// compared whatever their scenario's name; runs with several are
	// compared step by step and scenario by scenario, a closed loop's
	// steps by scenario and users (as loadlab compare matches two sweeps'
	// steps). A closed loop's statistics lead with its throughput.
	single := true
	for _, run := range runs {
		single = single && len(run.Steps) == 1
	}
	var all []*compare.Run
	for i, run := range runs {
		users, byUsers := stepUsers(run)
		for j, st := range run.Steps {
			hist, err := h.histogram(ctx, run.ID, st)
			if err != nil {
				return nil, err
			}
			if hist == nil {
				continue
			}
			cr := compare.NewRunFromHistogram(names[i], hist, st.Requests, successes(st.Figures))
			cr.Span = span(st.Figures)
			blocks, err := h.store.Blocks(ctx, run.ID, st.Index, st.Scenario)
			if err != nil && !errors.Is(err, archive.ErrNotFound) {
				return nil, err
			}
			cr.Keep(blocks, st.Health) // none: archived before blocks were kept, cannot tell
			if users != nil {
				cr.Users = users[j]
			}
			switch {
			case single:
			case byUsers:
				cr.Group = compare.ClosedGroup(st.Scenario, users[j])
			default:
				cr.Group = stepTitle(run, st)
			}
			all = append(all, cr)
		}
	}
	comps, alone, err := compare.CompareGroups(all, "1", compare.Options{Seed: compareSeed, RunLevel: true})
	if err != nil && len(comps) == 0 {
		out = append(out, web.Section{Title: "Statistics", HTML: `<p class="empty">These runs share no step and scenario to compare (or have no stored latency histograms).</p>`})
		return out, nil
	}
	if err != nil {
		return nil, err
	}
	for _, c := range comps {
		title := "Statistics"
		if c.Report.Group != "" {
			title += ": " + c.Report.Group
		}
		hdr, rows := c.Report.Table()
		meta := `<p class="meta">` + template.HTMLEscapeString(fmt.Sprintf("Baseline: %s. Requests: %s.", c.Report.Baseline, c.Report.Sizes())) + `</p>`
		for _, n := range c.Report.Notes { // runs made on a busy machine
			meta += `<p class="note noisy-note">` + template.HTMLEscapeString("Note: "+n) + `</p>`
		}
		out = append(out, web.Section{Title: title,
			HTML:   template.HTML(meta),
			Tables: []web.Table{{Header: hdr, Rows: rows}},
			Charts: []plot.Chart{plot.PercentileChart("Latency by percentile"+strings.TrimPrefix(title, "Statistics"), compare.Distributions(c.Runs)...)}})
	}
	if len(alone) > 0 {
		var parts []string
		for _, a := range alone {
			s := a.Name
			if a.Group != "" {
				s += " (" + a.Group + ")"
			}
			parts = append(parts, s)
		}
		out = append(out, web.Section{Title: "Nothing to compare with", HTML: template.HTML(`<p class="meta">` + template.HTMLEscapeString(strings.Join(parts, "; ")) + `</p>`)})
	}
	if len(comps) > 0 {
		out = append(out, web.Section{Title: "Method", HTML: template.HTML(`<p class="hint">` + template.HTMLEscapeString(comps[0].Report.Method()) + `</p>`)})
	}
	return out, nil
}

// successes is the number of successful requests behind a step's ratio.
func successes(f archive.Figures) uint64 {
	return uint64(f.Success*float64(f.Requests) + 0.5)
}

// span is what a step's throughput was counted over (from its first
// request sent to its last answer): its successes over its throughput,
// both as metrics measured them; 0 when it had none.
func span(f archive.Figures) time.Duration {
	ok := successes(f)
	if ok == 0 || f.Throughput <= 0 {
		return 0
	}
	return time.Duration(float64(ok) / f.Throughput * float64(time.Second))
}

// stepUsers are the users of each of a closed loop's steps, in order;
// nil for a paced run, or when the archive knows only the fewest and the
// most of them (a sweep of three steps or more archived before it kept
// each step's: of two, the fewest are taken as the first step's, the
// order a sweep's matrix lists them in). byUsers
// says whether its steps are told apart by scenario and users, as
// loadlab compare matches them; not when two had the same (a plan that
// varied more than the users: its steps are matched by their places).
func stepUsers(run *archive.Run) (users []int, byUsers bool) {
	users = run.Users
	if len(users) == 1 {
		users = slices.Repeat(users, len(run.Steps))
	}
	if len(users) != len(run.Steps) || len(users) == 0 {
		return nil, false
	}
	seen := map[string]bool{}
	for i, st := range run.Steps {
		g := compare.ClosedGroup(st.Scenario, users[i])
		if seen[g] {
			return users, false
		}
		seen[g] = true
	}
	return users, true
}

// displayNames names each run for tables and legends: its name, with
// the labels that tell it from the others of that name (build=2020-02-04),
// or its ID when they do not.
func displayNames(runs []*archive.Run) []string {
	byName := map[string][]*archive.Run{}
	for _, r := range runs {
		byName[r.Name] = append(byName[r.Name], r)
	}
	out := make([]string, len(runs))
	seen := map[string]bool{}
	for i, r := range runs {
		out[i] = r.Name
		if same := byName[r.Name]; len(same) > 1 {
			var parts []string
			for _, l := range sortedLabels(r.Labels) {
				for _, o := range same {
					if o.Labels[l.Key] != l.Value {
						parts = append(parts, l.Key+"="+l.Value)
						break
					}
				}
			}
			if len(parts) > 0 {
				out[i] += " " + strings.Join(parts, " ")
			}
		}
		if out[i] == "" || seen[out[i]] {
			out[i] = strings.TrimSpace(out[i] + " " + r.ID)
		}
		seen[out[i]] = true
	}
	return out
}
