// Package config reads and validates the proxy's YAML configuration: pools
// (size, overflow, checkout timeout), routes (path pattern, upstream,
// request timeout, cache, fallback, breaker) and the cache bounds. Errors
// are *badinput.Error values naming the file, line and field.
package config

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/loadlab/loadlab/internal/badinput"
	"github.com/loadlab/loadlab/internal/routepath"
)

// Config is a proxy configuration, as read from YAML (see docs/proxy.md).
type Config struct {
	// Pools are the named worker pools routes draw from.
	Pools map[string]*PoolConfig `yaml:"pools"`
	// Routes are tried in order; the first whose path matches serves.
	Routes []*RouteConfig `yaml:"routes"`
	// Cache bounds the response cache shared by all routes.
	Cache CacheConfig `yaml:"cache"`
	// Source names where the config came from, for messages.
	Source string `yaml:"-"`
}

// PoolConfig sizes one worker pool, as poolboy's size and max_overflow.
type PoolConfig struct {
	Size            int      `yaml:"size"`             // persistent keep-alive workers
	Overflow        int      `yaml:"overflow"`         // extra workers opened on demand, closed after use
	CheckoutTimeout Duration `yaml:"checkout_timeout"` // wait for a free worker (default 6s)
	TimeoutStatus   int      `yaml:"timeout_status"`   // status when the wait times out (default 500)
	// Manager is "serial" (default: poolboy's single gen_server, which
	// starts and dismisses overflow workers itself, one message at a time)
	// or "concurrent" (a mutex; overflow workers cost nothing to start).
	Manager string `yaml:"manager"`
	// WorkerStartCost is paid inside the serial manager for every overflow
	// worker it starts, on top of the real upstream dial (default 0).
	WorkerStartCost Duration `yaml:"worker_start_cost"`
	// WorkerStopCost is paid inside the serial manager for every worker it
	// dismisses (default a quarter of worker_start_cost).
	WorkerStopCost Duration `yaml:"worker_stop_cost"`
}

// Pool managers (see PoolConfig.Manager).
const (
	ManagerSerial     = "serial"
	ManagerConcurrent = "concurrent"
)

// maxWorkerCost bounds worker_start_cost and worker_stop_cost.
const maxWorkerCost = 10 * time.Second

// RouteConfig maps a path pattern to an upstream.
type RouteConfig struct {
	Name           string         `yaml:"name"`            // label in metrics; default the path
	Path           string         `yaml:"path"`            // "/news" exact, "/search*" prefix, "/*" all
	Upstream       string         `yaml:"upstream"`        // http://host:port[/base]
	Pool           PoolRef        `yaml:"pool"`            // pool name, or an inline pool of its own
	RequestTimeout Duration       `yaml:"request_timeout"` // upstream request timeout (default 5s)
	Cache          bool           `yaml:"cache"`           // serve fresh cached copies
	Fallback       bool           `yaml:"fallback"`        // serve stale copies when the upstream fails
	ErrorStatus    int            `yaml:"error_status"`    // status on upstream errors and timeouts (default 502/504)
	Breaker        *BreakerConfig `yaml:"breaker"`         // nil: no breaker
}

// PoolRef is a route's pool: the name of a shared pool, or a pool of its own
// written inline (named "route:<route name>").
type PoolRef struct {
	Name   string
	Inline *PoolConfig
}

// BreakerConfig tunes a route's circuit breaker.
type BreakerConfig struct {
	Window    Duration `yaml:"window"`    // error-counting window (default 60s as in Belfrage)
	Threshold int      `yaml:"threshold"` // opens above this many errors in a window
	Recovery  string   `yaml:"recovery"`  // "ramp" (default) or "half_open"
	Ramp      []int    `yaml:"ramp"`      // ramp throughput steps in percent (default 20, 60, 100)
	OpenFor   Duration `yaml:"open_for"`  // half_open: pause before probing (default window)
	Probes    int      `yaml:"probes"`    // half_open: successes needed to close (default 1)
	Status    int      `yaml:"status"`    // status when open and no fallback (default 500)
}

// CacheConfig bounds the response cache.
type CacheConfig struct {
	MaxEntries   int      `yaml:"max_entries"`    // default 10000
	StaleFor     Duration `yaml:"stale_for"`      // kept past max-age for fallbacks (default 1h)
	MaxBodyBytes int      `yaml:"max_body_bytes"` // larger bodies are not stored (default 1 MiB)
}

// Duration is a time.Duration written as "250ms", "5s".
type Duration time.Duration

// UnmarshalYAML parses a Go duration string.
func (d *Duration) UnmarshalYAML(n *yaml.Node) error {
	v, err := time.ParseDuration(n.Value)
	if n.Kind != yaml.ScalarNode || err != nil {
		return &valueError{line: n.Line, col: n.Column, msg: fmt.Sprintf("%q is not a duration (e.g. 250ms, 5s)", n.Value)}
	}
	if v < 0 {
		return &valueError{line: n.Line, col: n.Column, msg: fmt.Sprintf("duration %q is negative", n.Value)}
	}
	*d = Duration(v)
	return nil
}

// valueError is a bad value met while decoding, at a node whose key the
// decoder does not know; Parse names the field from the position.
type valueError struct {
	line, col int
	msg       string
}

func (e *valueError) Error() string { return e.msg }

// MarshalYAML writes the duration as a string.
func (d Duration) MarshalYAML() (any, error) { return time.Duration(d).String(), nil }

// D returns the time.Duration.
func (d Duration) D() time.Duration { return time.Duration(d) }

// UnmarshalYAML accepts a pool name or an inline pool mapping.
func (p *PoolRef) UnmarshalYAML(n *yaml.Node) error {
	switch n.Kind {
	case yaml.ScalarNode:
		p.Name = n.Value
		return nil
	case yaml.MappingNode:
		if err := checkKeys(n, "size", "overflow", "checkout_timeout", "timeout_status", "manager", "worker_start_cost", "worker_stop_cost"); err != nil {
			return err
		}
		pc := &PoolConfig{}
		if err := n.Decode(pc); err != nil {
			return err
		}
		p.Inline = pc
		return nil
	}
	return &badinput.Error{Line: n.Line, Field: "pool", Msg: "want a pool name or a mapping with size, overflow, checkout_timeout"}
}

// MarshalYAML writes the name or the inline pool.
func (p PoolRef) MarshalYAML() (any, error) {
	if p.Inline != nil {
		return p.Inline, nil
	}
	return p.Name, nil
}

// checkKeys rejects mapping keys outside allowed (Node.Decode does not).
func checkKeys(n *yaml.Node, allowed ...string) error {
	for i := 0; i+1 < len(n.Content); i += 2 {
		k := n.Content[i]
		ok := false
		for _, a := range allowed {
			ok = ok || k.Value == a
		}
		if !ok {
			return &badinput.Error{Line: k.Line, Field: k.Value, Msg: "unknown field (want one of " + strings.Join(allowed, ", ") + ")"}
		}
	}
	return nil
}

// Load reads a YAML config file, replaces its ${NAME} and ${NAME:-default}
// references with environment variables, and validates it.
func Load(path string) (*Config, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, &badinput.Error{File: path, Msg: "cannot read config", Err: unwrapPathErr(err)}
	}
	if data, err = expandEnv(data, path, os.LookupEnv); err != nil {
		return nil, err
	}
	return Parse(data, path)
}

func unwrapPathErr(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// Defaults, as Belfrage's (seed report 003: 6 s checkout, 5 s request).
const (
	DefaultCheckoutTimeout = 6 * time.Second
	DefaultRequestTimeout  = 5 * time.Second
	DefaultStatus          = 500
	DefaultBreakerWindow   = 60 * time.Second
	defaultPoolName        = "default"
)

var yamlLine = regexp.MustCompile(`line (\d+): (.*)`)

// Parse parses and validates a YAML config; source names it in errors.
// Problems come back as *badinput.Error naming the file, line and field.
func Parse(data []byte, source string) (*Config, error) {
	cfg := &Config{Source: source}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(cfg); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, &badinput.Error{File: source, Msg: "config is empty"}
		}
		var ve *valueError
		if errors.As(err, &ve) {
			var root yaml.Node
			field := ""
			if yaml.Unmarshal(data, &root) == nil {
				field = fieldAt(&root, ve.line, ve.col)
			}
			return nil, &badinput.Error{File: source, Line: ve.line, Field: field, Msg: ve.msg}
		}
		return nil, yamlError(source, err)
	}
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil {
		return nil, yamlError(source, err)
	}
	if err := cfg.validate(&root); err != nil {
		return nil, err
	}
	return cfg, nil
}

// yamlError turns a yaml error into a one-line bad-input error.
func yamlError(source string, err error) error {
	var be *badinput.Error
	if errors.As(err, &be) {
		return badinput.Wrap(source, be)
	}
	msg := err.Error()
	if m := yamlLine.FindStringSubmatch(msg); m != nil {
		line, _ := strconv.Atoi(m[1])
		return &badinput.Error{File: source, Line: line, Msg: strings.TrimSpace(strings.SplitN(m[2], "\n", 2)[0])}
	}
	return &badinput.Error{File: source, Msg: strings.TrimPrefix(strings.SplitN(msg, "\n", 2)[0], "yaml: ")}
}

// validator reports problems at the line of a field.
type validator struct {
	source string
	root   *yaml.Node
}

func (v *validator) errAt(msg string, path ...any) error {
	field, line := fieldName(path), lineOf(v.root, path)
	return &badinput.Error{File: v.source, Line: line, Field: field, Msg: msg}
}

func fieldName(path []any) string {
	var b strings.Builder
	for _, p := range path {
		switch p := p.(type) {
		case int:
			fmt.Fprintf(&b, "[%d]", p)
		case string:
			if b.Len() > 0 {
				b.WriteByte('.')
			}
			b.WriteString(p)
		}
	}
	return b.String()
}

// walk follows path (mapping keys and sequence indexes) from the document
// root. It returns the node at the end of path (nil if path is not all
// there) and the line of the deepest key or item found.
func walk(root *yaml.Node, path []any) (*yaml.Node, int) {
	n := root
	if n.Kind == yaml.DocumentNode && len(n.Content) > 0 {
		n = n.Content[0]
	}
	line := n.Line
	for _, p := range path {
		var next *yaml.Node
		switch p := p.(type) {
		case string:
			if n.Kind == yaml.MappingNode {
				for i := 0; i+1 < len(n.Content); i += 2 {
					if n.Content[i].Value == p {
						line = n.Content[i].Line
						next = n.Content[i+1]
					}
				}
			}
		case int:
			if n.Kind == yaml.SequenceNode && p < len(n.Content) {
				next = n.Content[p]
				line = next.Line
			}
		}
		if next == nil {
			return nil, line
		}
		n = next
	}
	return n, line
}

// fieldAt names the field whose scalar value starts at line and col, or
// returns "" when there is none.
func fieldAt(root *yaml.Node, line, col int) string {
	var path []any
	var find func(n *yaml.Node) bool
	find = func(n *yaml.Node) bool {
		switch n.Kind {
		case yaml.ScalarNode:
			return n.Line == line && n.Column == col
		case yaml.DocumentNode:
			return len(n.Content) > 0 && find(n.Content[0])
		case yaml.MappingNode:
			for i := 0; i+1 < len(n.Content); i += 2 {
				path = append(path, n.Content[i].Value)
				if find(n.Content[i+1]) {
					return true
				}
				path = path[:len(path)-1]
			}
		case yaml.SequenceNode:
			for i, c := range n.Content {
				path = append(path, i)
				if find(c) {
					return true
				}
				path = path[:len(path)-1]
			}
		}
		return false
	}
	if !find(root) {
		return ""
	}
	return fieldName(path)
}

// lineOf is the line of the deepest node along path.
func lineOf(root *yaml.Node, path []any) int {
	_, line := walk(root, path)
	return line
}

// has reports whether path exists in the document.
func has(root *yaml.Node, path ...any) bool {
	n, _ := walk(root, path)
	return n != nil
}

func (c *Config) validate(root *yaml.Node) error {
	v := &validator{source: c.Source, root: root}
	if c.Pools == nil {
		c.Pools = map[string]*PoolConfig{}
	}
	names := make([]string, 0, len(c.Pools))
	for name := range c.Pools {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		pc := c.Pools[name]
		if pc == nil {
			return v.errAt("empty pool; give at least size", "pools", name)
		}
		if err := v.pool(pc, has(root, "pools", name, "size"), "pools", name); err != nil {
			return err
		}
	}
	if len(c.Routes) == 0 {
		return v.errAt("at least one route is required", "routes")
	}
	seen := map[string]int{}
	for i, r := range c.Routes {
		if r == nil {
			return v.errAt("empty route", "routes", i)
		}
		if err := v.route(c, r, i); err != nil {
			return err
		}
		if j, dup := seen[r.Name]; dup {
			return v.errAt(fmt.Sprintf("route name %q already used by routes[%d]", r.Name, j), "routes", i, "name")
		}
		seen[r.Name] = i
	}
	cc := &c.Cache
	switch {
	case cc.MaxEntries < 0:
		return v.errAt("must be >= 0", "cache", "max_entries")
	case cc.MaxBodyBytes < 0:
		return v.errAt("must be >= 0", "cache", "max_body_bytes")
	}
	if !has(root, "cache", "max_entries") {
		cc.MaxEntries = 10000
	}
	if cc.MaxBodyBytes == 0 {
		cc.MaxBodyBytes = 1 << 20
	}
	if cc.StaleFor == 0 {
		cc.StaleFor = Duration(time.Hour)
	}
	return nil
}

func (v *validator) pool(pc *PoolConfig, hasSize bool, path ...any) error {
	at := func(f string) []any { return append(append([]any{}, path...), f) }
	switch {
	case !hasSize:
		return v.errAt("size is required (persistent workers; 0 for overflow only)", path...)
	case pc.Size < 0:
		return v.errAt("must be >= 0", at("size")...)
	case pc.Overflow < 0:
		return v.errAt("must be >= 0", at("overflow")...)
	case pc.Size+pc.Overflow < 1:
		return v.errAt("size + overflow must be at least 1", at("overflow")...)
	case pc.Size+pc.Overflow > 100_000:
		return v.errAt("size + overflow above 100,000", at("size")...)
	case pc.TimeoutStatus != 0 && (pc.TimeoutStatus < 100 || pc.TimeoutStatus > 599):
		return v.errAt("not an HTTP status (100-599)", at("timeout_status")...)
	case pc.Manager != "" && pc.Manager != ManagerSerial && pc.Manager != ManagerConcurrent:
		return v.errAt(fmt.Sprintf("%q: want serial (poolboy's single manager, the default) or concurrent", pc.Manager), at("manager")...)
	case pc.WorkerStartCost.D() > maxWorkerCost:
		return v.errAt("above 10s", at("worker_start_cost")...)
	case pc.WorkerStopCost.D() > maxWorkerCost:
		return v.errAt("above 10s", at("worker_stop_cost")...)
	case pc.Manager == ManagerConcurrent && pc.WorkerStartCost > 0:
		return v.errAt("only the serial manager pays a start cost (set manager: serial or remove it)", at("worker_start_cost")...)
	case pc.Manager == ManagerConcurrent && pc.WorkerStopCost > 0:
		return v.errAt("only the serial manager pays a stop cost (set manager: serial or remove it)", at("worker_stop_cost")...)
	}
	if pc.Manager == "" {
		pc.Manager = ManagerSerial
	}
	if !has(v.root, at("worker_stop_cost")...) {
		pc.WorkerStopCost = pc.WorkerStartCost / 4
	}
	if pc.CheckoutTimeout == 0 {
		pc.CheckoutTimeout = Duration(DefaultCheckoutTimeout)
	}
	if pc.TimeoutStatus == 0 {
		pc.TimeoutStatus = DefaultStatus
	}
	return nil
}

func (v *validator) route(c *Config, r *RouteConfig, i int) error {
	at := func(f ...any) []any { return append([]any{"routes", i}, f...) }
	if r.Path == "" {
		return v.errAt("path is required (e.g. /news, /search*, /*)", at()...)
	}
	if !strings.HasPrefix(r.Path, "/") {
		return v.errAt(fmt.Sprintf("%q must start with /", r.Path), at("path")...)
	}
	if routepath.InnerStar(r.Path) {
		return v.errAt(fmt.Sprintf("%q: only a trailing * is supported", r.Path), at("path")...)
	}
	if r.Name == "" {
		r.Name = r.Path
	}
	if r.Upstream == "" {
		return v.errAt("upstream is required (e.g. http://127.0.0.1:8080)", at()...)
	}
	u, err := url.Parse(r.Upstream)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" {
		return v.errAt(fmt.Sprintf("%q is not an http:// or https:// URL with a host", r.Upstream), at("upstream")...)
	}
	switch {
	case r.Pool.Inline != nil:
		if err := v.pool(r.Pool.Inline, has(v.root, at("pool", "size")...), at("pool")...); err != nil {
			return err
		}
	case r.Pool.Name == "":
		r.Pool.Name = defaultPoolName
		if c.Pools[defaultPoolName] == nil {
			return v.errAt(`no pool given and no pool named "default" (add pools.default or route pool:)`, at()...)
		}
	case c.Pools[r.Pool.Name] == nil:
		return v.errAt(fmt.Sprintf("no pool named %q under pools", r.Pool.Name), at("pool")...)
	}
	if r.RequestTimeout == 0 {
		r.RequestTimeout = Duration(DefaultRequestTimeout)
	}
	if r.ErrorStatus != 0 && (r.ErrorStatus < 100 || r.ErrorStatus > 599) {
		return v.errAt("not an HTTP status (100-599)", at("error_status")...)
	}
	if r.Breaker != nil {
		return v.breaker(r.Breaker, at("breaker"))
	}
	return nil
}

func (v *validator) breaker(b *BreakerConfig, path []any) error {
	at := func(f string) []any { return append(append([]any{}, path...), f) }
	if !has(v.root, at("threshold")...) {
		return v.errAt("threshold is required (errors per window above which it opens)", path...)
	}
	if b.Threshold < 0 {
		return v.errAt("must be >= 0", at("threshold")...)
	}
	if b.Window == 0 {
		b.Window = Duration(DefaultBreakerWindow)
	}
	switch b.Recovery {
	case "":
		b.Recovery = "ramp"
	case "ramp", "half_open":
	default:
		return v.errAt(fmt.Sprintf("%q: want ramp or half_open", b.Recovery), at("recovery")...)
	}
	if len(b.Ramp) == 0 {
		b.Ramp = []int{20, 60, 100}
	}
	prev := 0
	for _, p := range b.Ramp {
		if p <= prev || p > 100 {
			return v.errAt("steps must rise strictly within 1..100", at("ramp")...)
		}
		prev = p
	}
	if prev != 100 {
		return v.errAt("last step must be 100", at("ramp")...)
	}
	if b.Probes < 0 {
		return v.errAt("must be >= 0", at("probes")...)
	}
	if b.Probes == 0 {
		b.Probes = 1
	}
	if b.OpenFor == 0 {
		b.OpenFor = b.Window
	}
	if b.Status == 0 {
		b.Status = DefaultStatus
	}
	if b.Status < 100 || b.Status > 599 {
		return v.errAt("not an HTTP status (100-599)", at("status")...)
	}
	return nil
}

// RouteFor returns the route that serves path, as the proxy picks it: the
// first whose pattern matches, or nil.
func (c *Config) RouteFor(path string) *RouteConfig {
	for _, r := range c.Routes {
		if routepath.Match(r.Path, path) {
			return r
		}
	}
	return nil
}

// PoolFor returns the pool name and config route r draws from.
func (c *Config) PoolFor(r *RouteConfig) (string, *PoolConfig) {
	if r.Pool.Inline != nil {
		return "route:" + r.Name, r.Pool.Inline
	}
	return r.Pool.Name, c.Pools[r.Pool.Name]
}
