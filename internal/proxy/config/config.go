// Package config reads and validates the proxy's YAML configuration: pools
// (size, overflow, checkout timeout), routes (path pattern, upstream,
// request timeout, cache, fallback, breaker) and the cache bounds. Errors
// are *badinput.Error values naming the file, line and field.
package config

import (
	"fmt"
	"net/url"
	"os"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/loadlab/loadlab/internal/badinput"
	"github.com/loadlab/loadlab/internal/routepath"
	"github.com/loadlab/loadlab/internal/yamlfile"
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

// Duration is a time.Duration written as "250ms", "5s" (see yamlfile).
type Duration = yamlfile.Duration

// YAMLShape tells the unknown-field check that an inline pool is read as
// a PoolConfig.
func (p *PoolRef) YAMLShape(n *yaml.Node) reflect.Type {
	if n.Kind == yaml.MappingNode {
		return reflect.TypeFor[PoolConfig]()
	}
	return nil
}

// UnmarshalYAML accepts a pool name or an inline pool mapping.
func (p *PoolRef) UnmarshalYAML(n *yaml.Node) error {
	switch n.Kind {
	case yaml.ScalarNode:
		p.Name = n.Value
		return nil
	case yaml.MappingNode:
		pc := &PoolConfig{}
		if err := n.Decode(pc); err != nil {
			return err
		}
		p.Inline = pc
		return nil
	}
	return yamlfile.ErrorAt(n, "want a pool name or a mapping with size, overflow, checkout_timeout")
}

// MarshalYAML writes the name or the inline pool.
func (p PoolRef) MarshalYAML() (any, error) {
	if p.Inline != nil {
		return p.Inline, nil
	}
	return p.Name, nil
}

// maxConfigSize bounds a config file; configs are a few kilobytes.
const maxConfigSize = 4 << 20

// Load reads a YAML config file, replaces its ${NAME} and ${NAME:-default}
// references with environment variables, and validates it.
func Load(path string) (*Config, error) {
	data, err := yamlfile.ReadFile(path, "config", maxConfigSize)
	if err != nil {
		return nil, err
	}
	return ParseEnv(data, path, os.LookupEnv)
}

// ParseEnv is Parse after replacing ${NAME} and ${NAME:-default} with
// lookup's values, as Load does with the environment.
func ParseEnv(data []byte, source string, lookup func(string) (string, bool)) (*Config, error) {
	data, err := expandEnv(data, source, lookup)
	if err != nil {
		return nil, err
	}
	return Parse(data, source)
}

// Defaults, as Belfrage's: a 6 s checkout timeout and a 5 s request timeout.
const (
	DefaultCheckoutTimeout = 6 * time.Second
	DefaultRequestTimeout  = 5 * time.Second
	DefaultStatus          = 500
	DefaultBreakerWindow   = 60 * time.Second
	defaultPoolName        = "default"
)

// Parse parses and validates a YAML config; source names it in errors.
// Problems come back as *badinput.Error naming the file, line and field.
func Parse(data []byte, source string) (*Config, error) {
	cfg := &Config{Source: source}
	doc, err := yamlfile.Parse(source, data, reflect.TypeFor[Config](), yamlfile.Options{Aliases: true})
	if err != nil {
		return nil, err
	}
	if doc.Root == nil {
		return nil, &badinput.Error{File: source, Msg: "config is empty"}
	}
	if err := doc.Decode(cfg); err != nil {
		return nil, err
	}
	if err := cfg.validate(doc); err != nil {
		return nil, err
	}
	return cfg, nil
}

// validator reports problems at the line of a field.
type validator struct {
	doc *yamlfile.Doc
}

func (v *validator) errAt(msg string, path ...any) error {
	return v.doc.Errorf(yamlfile.Path(path), "%s", msg)
}

// has reports whether path exists in the document.
func (v *validator) has(path ...any) bool { return v.doc.Has(yamlfile.Path(path)) }

func (c *Config) validate(doc *yamlfile.Doc) error {
	v := &validator{doc: doc}
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
		if err := v.pool(pc, v.has("pools", name, "size"), "pools", name); err != nil {
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
	if !v.has("cache", "max_entries") {
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
	if !v.has(at("worker_stop_cost")...) {
		pc.WorkerStopCost = pc.WorkerStartCost / 4
	}
	if pc.CheckoutTimeout == 0 {
		if v.has(at("checkout_timeout")...) {
			return v.errAt("must be positive: a checkout cannot wait forever (leave it out for the default, 6s)", at("checkout_timeout")...)
		}
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
	if r.Path == "/metrics" || r.Path == "/status" {
		return v.errAt(fmt.Sprintf("%q is reserved for the proxy's own metrics and status; give the route another path", r.Path), at("path")...)
	}
	if r.Path != "/*" {
		for _, reserved := range []string{"/metrics", "/status"} {
			if routepath.Match(r.Path, reserved) {
				return v.errAt(fmt.Sprintf("%q matches %s, which the proxy serves itself: this route would never get it; give the route a path that does not match it (only the catch-all /* may)", r.Path, reserved), at("path")...)
			}
		}
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
	if p := u.Port(); p != "" {
		if n, err := strconv.Atoi(p); err != nil || n < 1 || n > 65535 {
			return v.errAt(fmt.Sprintf("%q: port %s is not between 1 and 65535", r.Upstream, p), at("upstream")...)
		}
	}
	switch {
	case r.Pool.Inline != nil:
		if err := v.pool(r.Pool.Inline, v.has(at("pool", "size")...), at("pool")...); err != nil {
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
	if !v.has(at("threshold")...) {
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
