// Package sent recovers the requests an attack really sent for templated
// targets. Results record a templated target's URL as its template
// (`/search?q={{rand.letters 50}}`), so reports group its requests; the
// results file's header keeps the templated targets and the seed their
// parts were rendered with (targets.PartSeed), and Renderer renders a
// result's URL, headers and body again from them and its sequence number.
// Nothing is stored per request: rendering again costs about as much as
// rendering did during the attack (bench/HISTORY.md, "Templated targets").
package sent

import (
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/loadlab/loadlab/internal/redact"
	"github.com/loadlab/loadlab/internal/results"
	"github.com/loadlab/loadlab/internal/targets"
)

// Record describes the templated targets among ts for a results file's
// header (results.Meta.Templates); untemplated targets need no record.
// Credentials are not recorded (package redact): the value of a header
// that carries one, or is named in secret, and a URL's password; such a
// request renders again with "REDACTED" in their place.
func Record(ts []*targets.Target, secret ...string) []results.TemplatedTarget {
	var out []results.TemplatedTarget
	for _, t := range ts {
		if !t.Templated() {
			continue
		}
		tt := results.TemplatedTarget{Index: t.Index, Method: t.Method, URL: redact.Text(t.Source())}
		for _, h := range t.Header {
			v := h.Value.Source()
			if redact.IsSecretHeader(h.Name) || slices.ContainsFunc(secret, func(s string) bool { return strings.EqualFold(s, h.Name) }) {
				v = redact.Mark
			}
			tt.Header = append(tt.Header, [2]string{h.Name, v})
		}
		if t.Body != nil {
			b := t.Body.Source()
			tt.Body = &b
		}
		out = append(out, tt)
	}
	return out
}

// Describe records in a results header what its requests can be rendered
// again from: the attack's templated targets (when the target list is
// known before the attack, not for a lazily read stream) and the seed;
// secret names headers whose values are not recorded (see Record).
func Describe(meta *results.Meta, seed uint64, ts []*targets.Target, secret ...string) {
	if meta.Templates = Record(ts, secret...); len(meta.Templates) > 0 {
		meta.Seed = seed
	}
}

// Renderer renders the requests of one results file's templated targets.
type Renderer struct {
	seed    uint64
	targets map[uint32]*targets.Target
	rng     *targets.Rand
	buf     []byte
}

// New returns the renderer of a results file's header, or nil when it
// records no templated target (nothing to render: results hold the URLs
// really requested).
func New(meta *results.Meta) (*Renderer, error) {
	if meta == nil || len(meta.Templates) == 0 || meta.Seed == 0 {
		return nil, nil
	}
	r := &Renderer{seed: meta.Seed, targets: map[uint32]*targets.Target{}, rng: targets.NewRand(1)}
	for _, tt := range meta.Templates {
		t, err := targets.Rebuild(tt.Index, tt.Method, tt.URL, tt.Header, tt.Body)
		if err != nil {
			return nil, fmt.Errorf("templated target %d in the results header: %v", tt.Index, err)
		}
		r.targets[tt.Index] = t
	}
	return r, nil
}

// Render replaces res.URL, when it is a templated target's template, with
// the URL really requested, and fills res.SentHeader and res.SentBody with
// the target's headers and body as sent (nil when they are not
// templated). Dropped requests, never sent, keep their template.
func (r *Renderer) Render(res *results.Result) {
	t := r.targets[res.Target]
	if t == nil || t.Source() != res.URL || strings.HasPrefix(res.Error, "dropped: ") {
		return
	}
	seq := res.Seq
	if !t.URL.Static() {
		r.buf = t.URL.AppendSeeded(r.buf[:0], r.rng, r.seed, seq, targets.PartURL)
		res.URL = string(r.buf)
	}
	templated := false
	for _, h := range t.Header {
		templated = templated || !h.Value.Static()
	}
	if templated {
		h := http.Header{}
		for i, hd := range t.Header {
			r.buf = hd.Value.AppendSeeded(r.buf[:0], r.rng, r.seed, seq, targets.PartHeader(i))
			h[hd.Name] = append(h[hd.Name], string(r.buf))
		}
		res.SentHeader = h
	}
	if t.Body != nil && !t.Body.Static() {
		res.SentBody = t.Body.AppendSeeded(nil, r.rng, r.seed, seq, targets.PartBody)
	}
}

// Decoder renders every result read from dec with r (r may be nil).
func Decoder(dec results.Decoder, r *Renderer) results.Decoder {
	if r == nil {
		return dec
	}
	return &decoder{dec, r}
}

type decoder struct {
	results.Decoder
	r *Renderer
}

func (d *decoder) Decode(res *results.Result) error {
	err := d.Decoder.Decode(res)
	if err == nil {
		d.r.Render(res)
	}
	return err
}

// Damaged passes on the damage the wrapped decoder skipped, if it tells.
func (d *decoder) Damaged() []results.Damage {
	if x, ok := d.Decoder.(interface{ Damaged() []results.Damage }); ok {
		return x.Damaged()
	}
	return nil
}
