package machinecost

import (
	"context"
	"slices"
	"time"

	"github.com/loadlab/loadlab/internal/attack/schedule"
	"github.com/loadlab/loadlab/internal/model"
	"github.com/loadlab/loadlab/internal/model/lab"
)

// ProbeSleeps are the sleeps Measure tries, ProbeEach how long each: the
// probe's turnovers take under a second in all.
var (
	ProbeSleeps = []time.Duration{250 * time.Microsecond, time.Millisecond, 5 * time.Millisecond, 20 * time.Millisecond}
	ProbeEach   = 200 * time.Millisecond
)

// Measure measures this machine's costs with a short probe: the real lab
// (the loadlab proxy and origin on loopback) serving a light attack, as
// the reference figures were taken (a process otherwise idle wakes
// slower still), and the turnovers of the real serial manager at
// ProbeSleeps beside it. The points are returned with the costs they
// give (FromPoints).
func Measure(ctx context.Context) (model.Costs, []Point, error) {
	l, err := lab.Start("pools:\n  default: {size: 1}\nroutes:\n  - {name: all, path: /*, upstream: \""+lab.UpstreamPlaceholder+"\", pool: default}\n",
		`{"route": "/*", "stages": [{"at": 0, "status": 200, "latency": "0s"}]}`)
	if err != nil {
		return model.Costs{}, nil, err
	}
	defer l.Close()
	sp, err := schedule.ParseSpec("40/s")
	if err != nil {
		return model.Costs{}, nil, err
	}
	sch, err := schedule.New(sp, time.Duration(len(ProbeSleeps))*ProbeEach)
	if err != nil {
		return model.Costs{}, nil, err
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		_, _ = lab.Attack(l.URL+"/x", sch, 2*time.Second)
	}()
	points, err := Turnovers(ctx, l.URL, ProbeSleeps, ProbeEach)
	<-done
	if err != nil {
		return model.Costs{}, nil, err
	}
	return FromPoints(points), points, nil
}

// FromPoints turns measured turnovers into the model's costs. Each
// point's overhead beyond the back-to-back dial and close
// (model.DefaultCosts' Dial and Close, kept) is the Wake's extra at its
// sleep, split between the dial and the close as the reference machine's
// Wake splits it there. The manager's work per message is the
// reference's, scaled by the median ratio of the overheads measured here
// to the reference's at the same sleeps (within ×0.5..×5): a machine
// whose manager turns workers over twice as slowly handles its messages
// about twice as slowly too.
func FromPoints(points []Point) model.Costs {
	k := model.DefaultCosts
	if len(points) == 0 {
		return k
	}
	ref := model.DefaultCosts.Wake
	w := &model.Wake{}
	var ratios []float64
	for _, p := range points {
		dial, cl := ref.After(p.Slept)
		base := k.Dial + k.Close
		if refAll := base + dial + cl; refAll > 0 {
			ratios = append(ratios, float64(p.Overhead)/float64(refAll))
		}
		extra := max(0, p.Overhead-base)
		share := 0.5
		if dial+cl > 0 {
			share = float64(dial) / float64(dial+cl)
		}
		w.Points = append(w.Points, model.WakePoint{Slept: p.Slept, Dial: time.Duration(share * float64(extra)), Close: extra - time.Duration(share*float64(extra))})
	}
	slices.SortFunc(w.Points, func(a, b model.WakePoint) int { return int(a.Slept - b.Slept) })
	slices.Sort(ratios)
	r := min(5, max(0.5, ratios[len(ratios)/2]))
	k.Message = time.Duration(r * float64(k.Message))
	k.Wake = w
	return k
}
