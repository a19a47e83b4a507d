package main

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"time"
)

// verdict says whether one series stayed flat after warm-up: the mean of
// its last three readings against the mean of the first three after
// warm-up, within a bound per resource.
type verdict struct {
	key
	from, to float64
	bound    string
	ok       bool
}

// bounds: how much a resource may grow after warm-up. Memory gets 25% and
// 16 MiB of room (the Go heap breathes with GC cycles); open files and
// goroutines follow connections, which the load keeps steady within a few
// dozen (hangs held until the proxy's 1 s timeout, overflow workers).
func bound(resource string, base float64) (float64, string) {
	switch resource {
	case "rss MiB":
		return base*1.25 + 16, "+25% +16 MiB"
	case "open files":
		return base + 64, "+64"
	case "goroutines":
		return base*1.25 + 64, "+25% +64"
	case "threads":
		return base + 8, "+8"
	}
	return base * 2, "x2"
}

func mean(ps []point) float64 {
	if len(ps) == 0 {
		return 0
	}
	s := 0.0
	for _, p := range ps {
		s += p.v
	}
	return s / float64(len(ps))
}

func judge(series map[key][]point, warmup time.Duration) []verdict {
	var out []verdict
	for k, ps := range series {
		var after []point
		for _, p := range ps {
			if p.at >= warmup {
				after = append(after, p)
			}
		}
		if len(after) < 4 {
			continue // too short to judge
		}
		n := min(3, len(after)/2)
		from, to := mean(after[:n]), mean(after[len(after)-n:])
		limit, text := bound(k.resource, from)
		out = append(out, verdict{key: k, from: from, to: to, bound: text, ok: to <= limit})
	}
	slices.SortFunc(out, func(a, b verdict) int {
		return strings.Compare(a.proc+" "+a.resource, b.proc+" "+b.resource)
	})
	return out
}

func (v verdict) fmt(x float64) string {
	if v.resource == "rss MiB" {
		return fmt.Sprintf("%.1f MiB", x)
	}
	return fmt.Sprintf("%.0f", x)
}

// printTable prints, per process and resource, the first reading, the
// last, the largest, and the judgement after warm-up.
func printTable(w io.Writer, series map[key][]point, vs []verdict) {
	fmt.Fprintf(w, "\n| process | resource | start | end | max | after warm-up | bound | |\n|---|---|---|---|---|---|---|---|\n")
	for _, v := range vs {
		ps := series[v.key]
		maxV := 0.0
		for _, p := range ps {
			maxV = max(maxV, p.v)
		}
		okText := "flat"
		if !v.ok {
			okText = "**grew**"
		}
		fmt.Fprintf(w, "| %s | %s | %s | %s | %s | %s → %s | %s | %s |\n", v.proc, v.resource,
			v.fmt(ps[0].v), v.fmt(ps[len(ps)-1].v), v.fmt(maxV), v.fmt(v.from), v.fmt(v.to), v.bound, okText)
	}
	fmt.Fprintln(w)
}
