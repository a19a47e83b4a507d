package writeup

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/loadlab/loadlab/internal/experiment/summary"
	"github.com/loadlab/loadlab/internal/load"
	"github.com/loadlab/loadlab/internal/redact"
)

// method says how the run was made: when, with what, on what machine,
// which scenarios at which rates and the plan's shape.
func method(sum *summary.Summary) section {
	ds := sum.Design
	if ds == nil {
		ds = &summary.Design{}
	}
	how := fmt.Sprintf("loadlab %s (%s), plan `%s`", sum.Version, sum.Machine.Go, sum.Plan)
	if len(sum.RunArgs) > 0 {
		how = fmt.Sprintf("loadlab %s (%s), `loadlab run %s`", sum.Version, sum.Machine.Go, strings.Join(redact.Args(sum.RunArgs), " "))
	}
	s := section{Title: "Method", Blocks: []block{{Items: []string{
		sum.Started.UTC().Format("2 January 2006 15:04 UTC") + ", " + sum.Ended.Sub(sum.Started).Round(1e9).String(),
		how,
		fmt.Sprintf("Machine: %s, %d cores, %.1f GB, %s %s; generator and components share it", orText(sum.Machine.CPU, "unknown CPU"), sum.Machine.Cores, sum.Machine.MemoryGB, sum.Machine.OS, sum.Machine.Kernel),
		"Latencies are measured from when each request was due (no coordinated omission); HTTP/1.1 keep-alive unless a scenario says otherwise",
	}}}}
	if sum.Health != nil {
		if line := sum.Health.Line(); line != "" {
			// what the machine did to the run while its attacks went
			s.Blocks[0].Items = slices.Insert(s.Blocks[0].Items, 3, "While the attacks ran: "+line)
		}
	}
	if len(sum.Steps) > 0 {
		var items []string
		for _, sc := range ds.Scenarios {
			item := fmt.Sprintf("**%s**: %s %s for %s", sc.Name, targetText(sum, sc), designLoads(sum, sc), sc.Duration)
			if len(sc.Headers) > 0 {
				item += fmt.Sprintf(", headers `%s`", strings.Join(sc.Headers, "`, `"))
			}
			items = append(items, item)
		}
		s.Blocks = append(s.Blocks, text("Every step runs these scenarios at the same time:"), block{Items: items})
	}
	shape := fmt.Sprintf("%d steps", ds.Steps)
	if len(ds.Axes) > 0 {
		var ax []string
		for _, a := range ds.Axes {
			ax = append(ax, a.Key+" ∈ {"+strings.Join(a.Values, ", ")+"}")
		}
		shape += ": the matrix " + strings.Join(ax, " × ")
	}
	if ds.Warmup != "" {
		shape += fmt.Sprintf("; each step starts with a %s warm-up whose results are not counted", ds.Warmup)
	}
	if ds.Cooldown != "" {
		shape += fmt.Sprintf("; %s of cool-down (still sampled) between steps", ds.Cooldown)
	}
	s.Blocks = append(s.Blocks, text(shape+"."))
	return s
}

// targetText is a scenario's target as the method states it: the plan's
// line when every step sends it, else the line with the varying part
// named and the values it took.
func targetText(sum *summary.Summary, sd summary.ScenarioDesign) string {
	if t := sum.TargetTemplate(sd.Name); t != "" {
		return t
	}
	return "`" + sd.Target + "`"
}

// config shows each component once: its command line per variant, its
// configuration file once, and the plan.
func config(sum *summary.Summary, f *folder) section {
	s := section{Title: "Config"}
	shownFile := map[string]bool{}
	shown := map[string]bool{}
	type shownText struct{ title, text string }
	firstFile := map[string]shownText{}
	for _, st := range sum.Steps {
		for _, c := range st.Components {
			key := c.Name + "/" + c.Variant
			if shown[key] {
				continue
			}
			shown[key] = true
			title := c.Name
			if c.Variant != "" {
				title += " (" + orText(c.Label, c.Variant) + ")"
			}
			bs := []block{code(c.CommandLine)}
			if c.File != "" && !shownFile[c.File] {
				shownFile[c.File] = true
				path, kept := componentFile(f.dir, c)
				ex := fileExcerpt(path, c.File)
				kind := "Config"
				if c.Kind == "origin" {
					kind = "Origin simulator recipe"
				}
				if kept && missing(path) {
					bs = append(bs, text(kind+": missing from the run folder (the run kept it as "+c.KeptFile()+")."))
				} else if first, ok := firstFile[c.Name]; ok && ex != "" {
					if diff := linesNotIn(ex, first.text); diff != "" {
						bs = append(bs, text(kind+": as "+first.title+"'s but for these lines:"), code(diff))
					} else {
						bs = append(bs, text(kind+": as "+first.title+"'s."))
					}
				} else if ex != "" {
					firstFile[c.Name] = shownText{title, ex}
					bs = append(bs, text(kind+":"), code(ex))
				}
			}
			s.Blocks = append(s.Blocks, heading(title))
			s.Blocks = append(s.Blocks, bs...)
		}
	}
	if f.plan != "" {
		s.Blocks = append(s.Blocks, text("The plan, as it ran: ["+planFile(sum)+"]("+planFile(sum)+")."))
	}
	return s
}

// missing reports whether no file is at path.
func missing(path string) bool {
	_, err := os.Stat(path)
	return errors.Is(err, fs.ErrNotExist)
}

func planFile(sum *summary.Summary) string {
	return "plan" + filepath.Ext(sum.Plan)
}

// linesNotIn is the lines of text that are not lines of base, in order.
func linesNotIn(text, base string) string {
	have := map[string]bool{}
	for _, l := range strings.Split(base, "\n") {
		have[l] = true
	}
	var out []string
	for _, l := range strings.Split(text, "\n") {
		if !have[l] {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

// designLoads says the loads a scenario ran at over the steps: "at 20/s,
// 40/s", "by 4, 16, 32 users (a closed loop: ...)", or both.
func designLoads(sum *summary.Summary, sd summary.ScenarioDesign) string {
	var users []int
	closedRate := map[string]bool{} // the rate text of its closed loops ("0")
	for _, st := range sum.Steps {
		if sc := st.Scenario(sd.Name); sc != nil && sc.Closed() {
			closedRate[sc.Rate] = true
			if !slices.Contains(users, sc.Users) {
				users = append(users, sc.Users)
			}
		}
	}
	if len(users) == 0 {
		return "at " + strings.Join(sd.Rates, ", ")
	}
	var rates []string
	for _, r := range sd.Rates {
		if !closedRate[r] {
			rates = append(rates, r)
		}
	}
	by := "by " + load.Closed(users[0]).String()
	if len(users) > 1 {
		n := make([]string, len(users))
		for i, u := range users {
			n[i] = strconv.Itoa(u)
		}
		by = "by " + strings.Join(n, ", ") + " users"
	}
	by += " (" + closedLoopNote + ")"
	if len(rates) == 0 {
		return by
	}
	return "at " + strings.Join(rates, ", ") + ", and " + by
}
