package config

import (
	"fmt"
	"net/url"
	"slices"
	"strings"
)

// Upstreams lists the distinct upstreams the routes send to (scheme and
// host, as "http://127.0.0.1:8080"), in the order the routes name them.
func (c *Config) Upstreams() []string {
	var out []string
	for _, r := range c.Routes {
		if u := origin(r.Upstream); !slices.Contains(out, u) {
			out = append(out, u)
		}
	}
	return out
}

// SetUpstream points every route at upstream (an http:// or https:// URL
// with a host and no path), keeping each route's base path: the -upstream
// flag of a config whose routes all go to one upstream. A config with
// several upstreams is refused (which route should move is not for a flag
// to guess).
func (c *Config) SetUpstream(upstream string) error {
	u, err := url.Parse(upstream)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" || strings.Trim(u.Path, "/") != "" {
		return fmt.Errorf("%q is not an http:// or https:// URL with a host and no path, such as http://127.0.0.1:8080", upstream)
	}
	if ups := c.Upstreams(); len(ups) > 1 {
		return fmt.Errorf("the config's routes go to %d upstreams (%s): set each route's upstream in the config instead", len(ups), strings.Join(ups, ", "))
	}
	base := u.Scheme + "://" + u.Host
	for _, r := range c.Routes {
		r.Upstream = base + strings.TrimPrefix(r.Upstream, origin(r.Upstream))
	}
	return nil
}

// origin is an upstream URL's scheme and host ("" path and query).
func origin(upstream string) string {
	u, err := url.Parse(upstream)
	if err != nil {
		return upstream
	}
	return u.Scheme + "://" + u.Host
}
