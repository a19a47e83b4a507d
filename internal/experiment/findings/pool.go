package findings

import (
	"os"
	"strings"
	"time"

	"github.com/loadlab/loadlab/internal/experiment/summary"
	"github.com/loadlab/loadlab/internal/proxy/config"
)

// PoolLimits reads a rendered proxy config and returns the limits of the
// pool that serves target's path (the first route's when none matches), or
// nil.
func PoolLimits(file, target string) *summary.PoolLimits {
	path := targetPath(target)
	data, err := os.ReadFile(file)
	if err != nil {
		return nil
	}
	cfg, err := config.Parse(data, file)
	if err != nil || len(cfg.Routes) == 0 {
		return nil
	}
	route := cfg.RouteFor(path)
	if route == nil {
		route = cfg.Routes[0]
	}
	name, pc := cfg.PoolFor(route)
	if pc == nil {
		return nil
	}
	return &summary.PoolLimits{Pool: name, Size: pc.Size, Overflow: pc.Overflow, CheckoutTimeout: time.Duration(pc.CheckoutTimeout).Seconds(),
		RequestTimeout: time.Duration(route.RequestTimeout).Seconds(), TimeoutStatus: pc.TimeoutStatus}
}

// targetPath is the path of a target line such as "GET http://h:1/search?q".
func targetPath(target string) string {
	f := strings.Fields(target)
	if len(f) == 0 {
		return "/"
	}
	u := f[len(f)-1]
	if i := strings.Index(u, "://"); i >= 0 {
		u = u[i+3:]
		if j := strings.IndexByte(u, '/'); j >= 0 {
			u = u[j:]
		} else {
			u = "/"
		}
	}
	if i := strings.IndexAny(u, "?#"); i >= 0 {
		u = u[:i]
	}
	return u
}
