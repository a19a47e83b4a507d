package site

import (
	"fmt"
	"net/url"
	"strings"

	"github.com/loadlab/loadlab/internal/archive"
)

// ParseLink parses one `archive serve -link KEY=TEMPLATE`: the runs'
// values of label KEY link to TEMPLATE with {} replaced by the value
// (path-escaped), e.g. commit=https://git.example/repo/commit/{}. Only
// http and https templates are accepted.
func ParseLink(s string) (key, template string, err error) {
	key, template, err = archive.ParseLabel(s)
	if err != nil {
		return "", "", err
	}
	if !strings.Contains(template, "{}") {
		return "", "", errorf("link for %q: the template has no {} where the label's value goes", key)
	}
	u, err := url.Parse(strings.ReplaceAll(template, "{}", "x"))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", "", errorf("link for %q: %q is not an http:// or https:// URL", key, template)
	}
	return key, template, nil
}

func errorf(format string, a ...any) error { return fmt.Errorf(format, a...) }

// sourceURL is where a label's value comes from (Options.Links), or "".
func (h *Handler) sourceURL(key, value string) string {
	t, ok := h.opts.Links[key]
	if !ok || value == "" {
		return ""
	}
	return strings.ReplaceAll(t, "{}", url.PathEscape(value))
}
