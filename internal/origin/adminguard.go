package origin

import (
	"net/http"
	"net/url"
	"strings"

	"github.com/loadlab/loadlab/internal/hostcheck"
)

// The admin API changes what the simulator serves, so a web page the
// tester happens to have open must not be able to drive it. With an admin
// token set, only requests carrying it are served (a page cannot add an
// Authorization header to a cross-site request without a CORS preflight,
// which the simulator never grants). Without a token, /_admin requests
// are refused (403) when:
//   - they come from a page of another site: an Origin header whose host
//     differs from the request's Host, or Sec-Fetch-Site cross-site or
//     same-site, or a Referer whose host differs from the request's Host
//     (an old browser without Fetch Metadata following a link or an
//     image to GET /_admin/restart sends only that);
//   - their Host is not an IP address, localhost (or a name under
//     .localhost) or one of Options.AdminHosts: a page whose own name
//     resolves to this machine (DNS rebinding) is same-origin with itself
//     and is stopped here.
// Tools such as curl send no Origin and the Host of the URL they were
// given, so they are not affected.

// adminRefusal says why r may not use the admin API, or "" if it may.
func (s *Simulator) adminRefusal(r *http.Request) string {
	if s.opts.AdminToken != "" {
		return "" // the token check decides
	}
	if site := r.Header.Get("Sec-Fetch-Site"); site == "cross-site" || site == "same-site" {
		return "admin requests sent by a web page of another site are refused; set an admin token (-admin-token) to allow browsers that send it"
	}
	if o := r.Header.Get("Origin"); o != "" {
		u, err := url.Parse(o)
		if err != nil || o == "null" || !strings.EqualFold(u.Host, r.Host) {
			return "admin requests sent by a web page of another origin (" + o + ") are refused; set an admin token (-admin-token) to allow browsers that send it"
		}
	}
	if ref := r.Header.Get("Referer"); ref != "" {
		u, err := url.Parse(ref)
		if err != nil || !strings.EqualFold(u.Host, r.Host) {
			return "admin requests sent from a web page of another origin (Referer " + ref + ") are refused; set an admin token (-admin-token) to allow browsers that send it"
		}
	}
	if hostcheck.Local(r.Host, s.opts.AdminHosts) {
		return ""
	}
	host := hostcheck.Name(r.Host)
	return "admin requests for host " + host + " are refused without an admin token (a page whose name resolves to this machine could send them); use the IP address, set -admin-token, or allow the name with -admin-host"
}
