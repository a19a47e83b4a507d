package origin

import (
	"math/rand/v2"
	"net/http"
	"strconv"

	"github.com/loadlab/loadlab/internal/badinput"
	"github.com/loadlab/loadlab/internal/origin/recipe"
)

// Per-request overrides, by query parameter or header (the query wins):
//
//	?delay=2s  or  X-Origin-Delay: 2s       latency (a duration or "A..B")
//	?status=503 or X-Origin-Status: 503     status code
//	?fault=reset or X-Origin-Fault: reset   reset, close, hang, slow_body, truncate, none
var overrideKeys = []struct{ query, header string }{
	{"delay", "X-Origin-Delay"},
	{"status", "X-Origin-Status"},
	{"fault", "X-Origin-Fault"},
}

func hasOverrides(r *http.Request) bool {
	if r.URL.RawQuery != "" {
		return true
	}
	for _, k := range overrideKeys {
		if _, ok := r.Header[k.header]; ok {
			return true
		}
	}
	return false
}

func overrideValue(r *http.Request, i int) (string, string, bool) {
	k := overrideKeys[i]
	if r.URL.RawQuery != "" {
		if q := r.URL.Query(); q.Has(k.query) {
			return q.Get(k.query), k.query, true
		}
	}
	if v := r.Header.Get(k.header); v != "" {
		return v, k.header, true
	}
	return "", "", false
}

// applyOverrides changes d as the request asks; errors name the parameter.
func applyOverrides(r *http.Request, rng func() *rand.Rand, d *draw) error {
	if v, name, ok := overrideValue(r, 0); ok {
		lo, hi, err := recipe.ParseDurationRange(v)
		if err != nil {
			return badinput.Field(name, "bad delay %q: %v (turn overrides off with -no-overrides)", v, err)
		}
		d.latency = recipe.Uniform{Min: lo, Max: hi}.Sample(rng())
	}
	if v, name, ok := overrideValue(r, 1); ok {
		c, err := strconv.Atoi(v)
		if err != nil || c < 200 || c > 599 {
			return badinput.Field(name, "bad status %q: want a code from 200 to 599 (turn overrides off with -no-overrides)", v)
		}
		d.status = c
	}
	if v, name, ok := overrideValue(r, 2); ok {
		f, ok := recipe.ParseFault(v)
		if !ok {
			return badinput.Field(name, "bad fault %q: want reset, close, hang, slow_body, truncate or none (turn overrides off with -no-overrides)", v)
		}
		d.fault = f
	}
	return nil
}
