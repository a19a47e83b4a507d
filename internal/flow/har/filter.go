package har

import (
	"path"
	"strings"
)

// Why an entry was left out of the flow.
const (
	keptEntry  = ""
	leftStatic = "static asset"
	leftHost   = "other host"
	leftOther  = "not HTTP"
	leftCORS   = "CORS preflight"
)

// staticTypes are the media types (and prefixes ending in "/") of static
// assets: images, style sheets, scripts, fonts, media.
var staticTypes = []string{
	"image/", "font/", "video/", "audio/",
	"text/css", "text/javascript", "application/javascript", "application/x-javascript",
	"application/ecmascript", "text/ecmascript", "application/wasm", "application/font-woff",
	"application/font-woff2", "application/x-font-ttf", "application/x-font-woff",
	"application/vnd.ms-fontobject", "application/manifest+json",
}

// staticExts are the file extensions of static assets.
var staticExts = map[string]bool{
	".png": true, ".jpg": true, ".jpeg": true, ".gif": true, ".webp": true, ".avif": true,
	".svg": true, ".ico": true, ".bmp": true, ".css": true, ".js": true, ".mjs": true,
	".map": true, ".woff": true, ".woff2": true, ".ttf": true, ".otf": true, ".eot": true,
	".mp4": true, ".webm": true, ".mp3": true, ".ogg": true, ".wasm": true,
}

// staticResources are Chrome's _resourceType values of static assets.
var staticResources = map[string]bool{
	"image": true, "stylesheet": true, "script": true, "font": true, "media": true, "manifest": true,
}

// isStatic reports whether e fetched a static asset, by its answer's media
// type, its URL's extension or Chrome's resource type.
func isStatic(e *Entry) bool {
	if staticResources[e.Resource] || staticExts[strings.ToLower(path.Ext(e.URL.Path))] {
		return true
	}
	for _, t := range staticTypes {
		if e.MIME == t || strings.HasSuffix(t, "/") && strings.HasPrefix(e.MIME, t) {
			return true
		}
	}
	return false
}

// firstHost is the host of the recording's first document: the first
// entry Chrome calls a document or that answered HTML, else the first
// HTTP entry.
func firstHost(r *Recording) string {
	for _, e := range r.Entries {
		if httpURL(&e) && (e.Resource == "document" || e.MIME == "text/html") {
			return e.URL.Host
		}
	}
	for _, e := range r.Entries {
		if httpURL(&e) {
			return e.URL.Host
		}
	}
	return ""
}

func httpURL(e *Entry) bool {
	return (e.URL.Scheme == "http" || e.URL.Scheme == "https") && e.URL.Host != ""
}

// hostAllowed reports whether host is in hosts, by host:port or host name.
func hostAllowed(host string, hosts []string) bool {
	name := host
	if i := strings.LastIndexByte(host, ':'); i >= 0 && !strings.HasSuffix(host, "]") {
		name = host[:i]
	}
	for _, h := range hosts {
		if strings.EqualFold(h, host) || strings.EqualFold(h, name) {
			return true
		}
	}
	return false
}

// leftOut says why e stays out of the flow, or keptEntry.
func leftOut(e *Entry, hosts []string, includeStatic bool) string {
	switch {
	case !httpURL(e) || e.Resource == "websocket" || e.Resource == "eventsource":
		return leftOther
	case e.Method == "OPTIONS" && headerValue(e.Headers, "Access-Control-Request-Method") != "":
		return leftCORS
	case !hostAllowed(e.URL.Host, hosts):
		return leftHost
	case !includeStatic && isStatic(e):
		return leftStatic
	}
	return keptEntry
}
