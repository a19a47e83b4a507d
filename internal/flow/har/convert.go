package har

import (
	"sort"
	"strings"
	"time"
)

// Options says what Convert keeps.
type Options struct {
	// Name is the flow's name (default "recording").
	Name string
	// Hosts are hosts kept besides the first document's (host or
	// host:port).
	Hosts []string
	// IncludeStatic keeps images, style sheets, scripts, fonts and media.
	IncludeStatic bool
	// MinThink is the shortest pause between requests written as a think
	// step; shorter gaps (a browser firing requests together) are none.
	// 0 means DefaultMinThink.
	MinThink time.Duration
}

// DefaultMinThink is the shortest recorded pause that becomes a think
// step.
const DefaultMinThink = 100 * time.Millisecond

// Flow is a recording made into a flow.
type Flow struct {
	Name  string
	Steps []Step
	// Kept and Total count the recorded entries; Left counts the ones left
	// out by reason ("static assets", "requests to other hosts", ...),
	// OtherHosts names the hosts left out.
	Kept, Total int
	Left        map[string]int
	OtherHosts  []string
	Host        string // the first document's host
}

// Step is a think step (Think > 0) or a request step.
type Step struct {
	Think    time.Duration
	Method   string
	URL      string // a template: literal "{{" escaped, captured values as {{var}}
	Headers  []Header
	Body     string // a template, as URL
	Captures []Capture
	Status   int // the recorded status, checked; 0: no check
}

// Capture takes a session variable from an answer: a JSON path of its
// body or one of its headers.
type Capture struct {
	Var    string
	JSON   string // "$.token", or ""
	Header string // a response header name, or ""
}

// Convert makes rec into a flow.
func Convert(rec *Recording, opts Options) *Flow {
	if opts.Name == "" {
		opts.Name = "recording"
	}
	if opts.MinThink <= 0 {
		opts.MinThink = DefaultMinThink
	}
	f := &Flow{Name: opts.Name, Total: len(rec.Entries), Left: map[string]int{}, Host: firstHost(rec)}
	hosts := append([]string{f.Host}, opts.Hosts...)
	var kept []*Entry
	others := map[string]bool{}
	for i := range rec.Entries {
		e := &rec.Entries[i]
		why := leftOut(e, hosts, opts.IncludeStatic)
		if why != keptEntry {
			f.Left[why]++
			if why == leftHost {
				others[e.URL.Host] = true
			}
			continue
		}
		kept = append(kept, e)
	}
	for h := range others {
		f.OtherHosts = append(f.OtherHosts, h)
	}
	sort.Strings(f.OtherHosts)
	f.Kept = len(kept)

	reqs := make([]*request, len(kept))
	for i, e := range kept {
		reqs[i] = newRequest(e)
	}
	caps := correlate(kept, reqs)

	var end time.Time // when the latest kept answer so far ended
	for i, e := range kept {
		if i > 0 {
			if gap := e.Start.Sub(end); gap >= opts.MinThink {
				f.Steps = append(f.Steps, Step{Think: gap.Round(time.Millisecond)})
			}
		}
		if t := e.Start.Add(e.Duration); t.After(end) {
			end = t
		}
		st := Step{Method: e.Method, URL: reqs[i].url.render(), Body: reqs[i].body.render(), Captures: caps[i]}
		for _, h := range reqs[i].headers {
			st.Headers = append(st.Headers, Header{Name: h.name, Value: h.value.render()})
		}
		if e.Status >= 100 && e.Status < 600 && e.Status != 304 {
			st.Status = e.Status
		}
		f.Steps = append(f.Steps, st)
	}
	return f
}

// droppedHeaders are request headers a flow does not replay: set by the
// HTTP client or the cookie jar, or describing the recording browser and
// its cache rather than the request.
var droppedHeaders = map[string]bool{
	"host": true, "content-length": true, "connection": true, "keep-alive": true,
	"proxy-connection": true, "transfer-encoding": true, "te": true, "upgrade": true,
	"accept-encoding": true, "cookie": true, "if-none-match": true, "if-modified-since": true,
	"upgrade-insecure-requests": true, "priority": true, "purpose": true, "referer": true,
	"user-agent": true, "accept-language": true, "cache-control": true, "pragma": true, "dnt": true,
}

// keepHeader reports whether a recorded request header is replayed.
func keepHeader(name string) bool {
	n := strings.ToLower(name)
	return n != "" && !strings.HasPrefix(n, ":") && !strings.HasPrefix(n, "sec-") && !droppedHeaders[n]
}
