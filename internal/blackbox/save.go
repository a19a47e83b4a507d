package blackbox

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"strings"
	"time"

	"github.com/loadlab/loadlab/internal/badinput"
	"github.com/loadlab/loadlab/internal/origin/recipe"
)

// SavedFormat names a saved fit's file; SavedVersion is its version: a
// file of another version is refused rather than half read.
const (
	SavedFormat  = "loadlab model fit"
	SavedVersion = 1
)

// saved is a fit's file: the fit, the service-time distribution's
// quantiles the model replays, and when it was measured.
type saved struct {
	Format           string          `json:"format"`
	Version          int             `json:"version"`
	Saved            time.Time       `json:"saved"`
	Fit              *Fit            `json:"fit"`
	ServiceQuantiles []time.Duration `json:"service_quantiles"`
}

// MarshalJSON writes the fit with its capacity null when no limit was
// found (JSON has no infinity).
func (f *Fit) MarshalJSON() ([]byte, error) {
	type plain Fit
	out := struct {
		*plain
		Capacity *float64 `json:"capacity"`
	}{plain: (*plain)(f)}
	if !math.IsInf(f.Capacity, 0) && !math.IsNaN(f.Capacity) {
		out.Capacity = &f.Capacity
	}
	return json.Marshal(out)
}

// UnmarshalJSON reads what MarshalJSON writes.
func (f *Fit) UnmarshalJSON(b []byte) error {
	type plain Fit
	in := struct {
		*plain
		Capacity *float64 `json:"capacity"`
	}{plain: (*plain)(f)}
	if err := json.Unmarshal(b, &in); err != nil {
		return err
	}
	f.Capacity = math.Inf(1)
	if in.Capacity != nil {
		f.Capacity = *in.Capacity
	}
	return nil
}

// Save writes the fit to file, versioned, for Load to reuse.
func Save(file string, f *Fit) error {
	b, err := json.MarshalIndent(saved{Format: SavedFormat, Version: SavedVersion, Saved: time.Now().UTC(), Fit: f, ServiceQuantiles: f.Service.Quantiles}, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(file, append(b, '\n'), 0o644)
}

// Load reads a fit Save wrote. A file that is not one, of another
// version, or whose fit is incomplete or out of range is bad input: one
// line naming the file and the field.
func Load(file string) (*Fit, error) {
	b, err := os.ReadFile(file)
	if err != nil {
		return nil, badinput.Field("-fit-load", "%v", err)
	}
	bad := func(field, format string, args ...any) error {
		return badinput.Errorf("%s: field %s: %s", file, field, fmt.Sprintf(format, args...))
	}
	var head struct {
		Format  string `json:"format"`
		Version int    `json:"version"`
	}
	if err := json.Unmarshal(b, &head); err != nil {
		return nil, badinput.Errorf("%s: not a saved fit (JSON): %v", file, err)
	}
	if head.Format != SavedFormat {
		return nil, bad("format", "want %q (a file -fit-save wrote), got %q", SavedFormat, head.Format)
	}
	if head.Version != SavedVersion {
		return nil, bad("version", "want %d, got %d: calibrate again and save with this loadlab", SavedVersion, head.Version)
	}
	var s saved
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&s); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			return nil, bad(strings.ReplaceAll(te.Field, ".plain", ""), "want %s, got a JSON %s", te.Type, te.Value)
		}
		return nil, badinput.Errorf("%s: %v", file, err)
	}
	f := s.Fit
	switch {
	case f == nil:
		return nil, bad("fit", "missing")
	case f.Target == "":
		return nil, bad("fit.target", "missing")
	case f.Servers < 1 || f.Servers > 1_000_000:
		return nil, bad("fit.servers", "want 1 to 1000000, got %d", f.Servers)
	case f.ServiceMean <= 0:
		return nil, bad("fit.service_mean", "want a positive duration (ns), got %d", f.ServiceMean)
	case f.QueueTimeout < 0:
		return nil, bad("fit.queue_timeout", "want 0 or a positive duration (ns), got %d", f.QueueTimeout)
	case f.RefusalStatus != 0 && (f.RefusalStatus < 100 || f.RefusalStatus > 599):
		return nil, bad("fit.refusal_status", "want 0 (no answer) or an HTTP status, got %d", f.RefusalStatus)
	case !(f.Capacity > 0):
		return nil, bad("fit.capacity", "want a positive rate or null (no limit), got %v", f.Capacity)
	}
	switch f.Queue {
	case QueueBounded, QueueNone, QueueUnbounded, QueueNotFound:
	default:
		return nil, bad("fit.queue", "want %q, %q, %q or %q, got %q", QueueBounded, QueueNone, QueueUnbounded, QueueNotFound, f.Queue)
	}
	if u := f.USL; u != nil && (u.Sigma < 0 || u.Kappa < 0 || math.IsNaN(u.Sigma) || math.IsNaN(u.Kappa)) {
		return nil, bad("fit.usl", "σ and κ must be 0 or more, got %v and %v", u.Sigma, u.Kappa)
	}
	q := s.ServiceQuantiles
	if len(q) < 2 {
		return nil, bad("service_quantiles", "want at least 2 quantiles, got %d", len(q))
	}
	for i, d := range q {
		if d < 0 || i > 0 && d < q[i-1] {
			return nil, bad("service_quantiles", "want ascending durations of 0 or more (ns); item %d is %d", i, d)
		}
	}
	f.Service = recipe.Empirical{Quantiles: q}
	f.Loaded = &Loaded{File: file, Saved: s.Saved}
	return f, nil
}

// Loaded says a fit was read from a file rather than calibrated now.
type Loaded struct {
	File  string    `json:"file"`
	Saved time.Time `json:"saved"`
}
