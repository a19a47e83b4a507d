package origin

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"

	"github.com/loadlab/loadlab/internal/badinput"
	"github.com/loadlab/loadlab/internal/origin/recipe"
)

// LoadRecipe parses and loads a recipe (one object or an array), as POST
// /_admin/add_recipe does. Routes it names replace the same routes loaded
// before, whose pending stages are cancelled; other routes stay, except
// the default welcome recipe, which the first load replaces. source names
// the recipe in errors (a file name). Errors are *badinput.Error values
// naming the field and value; on error the recipe in force is unchanged.
func (s *Simulator) LoadRecipe(data []byte, source string) error {
	return s.loadRecipe(context.Background(), data, source)
}

func (s *Simulator) loadRecipe(ctx context.Context, data []byte, source string) error {
	if int64(len(data)) > s.opts.MaxRecipeBytes {
		return &badinput.Error{File: source, Msg: fmt.Sprintf("recipe is %d bytes, more than the %d-byte limit", len(data), s.opts.MaxRecipeBytes)}
	}
	recs, err := recipe.Parse(data)
	if err != nil {
		return badinput.Wrap(source, err)
	}
	field := func(i int, name string) string {
		if len(recs) > 1 || (len(data) > 0 && firstByte(data) == '[') {
			return fmt.Sprintf("[%d].%s", i, name)
		}
		return name
	}
	// Bodies are sized before any is built: an oversized recipe is refused
	// without allocating it. The routes it replaces are not counted.
	planned := make([]int64, len(recs))
	replaced := map[string]bool{}
	var total int64
	for i := range recs {
		planned[i] = plannedBytes(&recs[i], nil)
		total += planned[i]
		replaced[recs[i].Route] = true
	}
	// The check and the reservation are one step: loads running at once
	// (parallel add_recipe calls) cannot all pass a check made before any
	// of them holds its bodies.
	kept, ok := s.reserve(replaced, total)
	if !ok {
		return &badinput.Error{File: source, Msg: budgetError(total+kept, s.opts.MaxRecipeMemory).Error()}
	}
	reserved := total
	defer func() { s.release(reserved) }()
	routes := make([]*route, 0, len(recs))
	for i := range recs {
		rec := &recs[i]
		var f *fetched
		if rec.Origin != "" {
			if f, err = s.record(ctx, rec.Origin); err != nil {
				return &badinput.Error{File: source, Field: field(i, "origin"), Msg: "cannot fetch " + rec.Origin + " (without a network, -origin-offline or -origin-file serve stand-ins)", Err: err}
			}
			more := plannedBytes(rec, f)
			total += more
			if kept, ok := s.reserve(replaced, more); !ok {
				return &badinput.Error{File: source, Field: field(i, "origin"), Msg: budgetError(total+kept, s.opts.MaxRecipeMemory).Error()}
			}
			reserved += more
		}
		rng := rand.New(rand.NewPCG(s.seed, hashString(rec.Route)))
		rt := newRoute(rec, buildPayload(rec, rng, f), s.seed)
		rt.bytes = plannedBytes(rec, f)
		routes = append(routes, rt)
	}
	s.loadMu.Lock()
	defer s.loadMu.Unlock()
	select {
	case <-s.done:
		return errors.New("origin simulator is closed")
	default:
	}
	old := s.tab.Load()
	keep := map[string]*route{}
	if !old.isDefault {
		for _, r := range old.list {
			keep[r.name] = r
		}
	} else {
		for _, r := range old.list {
			r.stop()
		}
	}
	for _, r := range routes {
		if prev, ok := keep[r.name]; ok {
			prev.stop()
		}
		keep[r.name] = r
		r.start(s.onSwitch)
	}
	all := make([]*route, 0, len(keep))
	for _, r := range keep {
		all = append(all, r)
	}
	s.tab.Store(newTable(all, false))
	names := make([]string, len(routes))
	for i, r := range routes {
		names[i] = r.name
	}
	s.opts.Logf("origin: loaded recipe %s: routes %s", source, strings.Join(names, " "))
	return nil
}

// record is what a recipe's origin URL is served as: a stand-in when the
// simulator is offline or maps the URL to a file, else the URL's answer,
// fetched once.
func (s *Simulator) record(ctx context.Context, url string) (*fetched, error) {
	if f, ok, err := s.standIn(url); ok {
		return f, err
	}
	return s.fetch(ctx, url)
}

func firstByte(b []byte) byte {
	for _, c := range b {
		if c != ' ' && c != '\t' && c != '\r' && c != '\n' {
			return c
		}
	}
	return 0
}
