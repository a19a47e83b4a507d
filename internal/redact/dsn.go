package redact

import (
	"net/url"
	"strings"
)

// DSN is a database address as messages may show it: a URL's password, a
// keyword DSN's password= and sslpassword= (and every other secret Text
// recognises) replaced by Mark. The whole of dsn is one address: a URL's
// password runs from the user's colon to the last @, whatever it holds
// (spaces, quotes, slashes).
func DSN(dsn string) string {
	if scheme, user, pw, host, ok := userinfo(dsn); ok {
		switch {
		case pw != "" || strings.Contains(user, ":"):
			dsn = scheme + user + ":" + Mark + "@" + host
		case !isPostgresScheme(strings.TrimSuffix(scheme, "://")):
			dsn = scheme + Mark + "@" + host
		}
	}
	return Text(dsn)
}

// userinfo splits a URL at its userinfo, taken to its last @: the scheme
// with ://, the user, the password (empty without a colon) and the rest.
func userinfo(dsn string) (scheme, user, pw, rest string, ok bool) {
	i := strings.Index(dsn, "://")
	at := strings.LastIndex(dsn, "@")
	if i <= 0 || at < i+3 || !userRE.MatchString(dsn[:i]+"://x@") {
		return "", "", "", "", false
	}
	scheme, info, rest := dsn[:i+3], dsn[i+3:at], dsn[at+1:]
	user, pw, _ = strings.Cut(info, ":")
	return scheme, user, pw, rest, true
}

// Secrets are the secret values in dsn as written, and as a driver may
// print them (URL-decoded, unquoted): what Scrub removes from a message.
func Secrets(dsn string) []string {
	var out []string
	add := func(v string) {
		if v == "" || v == Mark {
			return
		}
		out = append(out, v)
		for _, dec := range []func(string) (string, error){url.PathUnescape, url.QueryUnescape} {
			if d, err := dec(v); err == nil && d != v && d != "" {
				out = append(out, d)
			}
		}
	}
	if scheme, user, pw, _, ok := userinfo(dsn); ok {
		add(pw)
		if pw == "" && !isPostgresScheme(strings.TrimSuffix(scheme, "://")) {
			add(user)
		}
	}
	for _, g := range userPassRE.FindAllStringSubmatch(dsn, -1) {
		add(g[3])
		// a driver that splits at the first @ sees a shorter password
		if p, _, ok := strings.Cut(g[3], "@"); ok {
			add(p)
		}
	}
	for _, g := range userRE.FindAllStringSubmatch(dsn, -1) {
		if !isPostgresScheme(g[1]) {
			add(g[2])
		}
	}
	for _, g := range paramRE.FindAllStringSubmatch(dsn, -1) {
		v := g[4]
		add(v)
		if strings.HasPrefix(v, "'") {
			v = strings.TrimSuffix(strings.TrimPrefix(v, "'"), "'")
			add(v)
			add(strings.NewReplacer(`\'`, `'`, `\\`, `\`).Replace(v))
		}
	}
	return out
}

// Scrub is msg (a driver's error, which may quote the DSN or a part of
// it) with every secret of dsn, and every secret Text recognises,
// replaced by Mark.
func Scrub(msg, dsn string) string {
	secrets := Secrets(dsn)
	// the longest first, so that a secret holding another goes whole
	for i := range secrets {
		for j := i + 1; j < len(secrets); j++ {
			if len(secrets[j]) > len(secrets[i]) {
				secrets[i], secrets[j] = secrets[j], secrets[i]
			}
		}
	}
	for _, s := range secrets {
		msg = strings.ReplaceAll(msg, s, Mark)
	}
	return Text(msg)
}
