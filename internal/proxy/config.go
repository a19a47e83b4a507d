package proxy

import "github.com/loadlab/loadlab/internal/proxy/config"

// Config is a proxy configuration; see package config and docs/proxy.md.
type Config = config.Config

// PoolConfig, RouteConfig, BreakerConfig and CacheConfig are its parts.
type (
	PoolConfig    = config.PoolConfig
	RouteConfig   = config.RouteConfig
	BreakerConfig = config.BreakerConfig
	CacheConfig   = config.CacheConfig
)

// LoadConfig reads and validates a YAML config file. Problems come back as
// *badinput.Error naming the file, line and field.
func LoadConfig(path string) (*Config, error) { return config.Load(path) }

// ParseConfig parses and validates a YAML config; source names it in errors.
func ParseConfig(data []byte, source string) (*Config, error) { return config.Parse(data, source) }
