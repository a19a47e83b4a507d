// Package redact removes credentials from what loadlab records and shows:
// the command lines kept in results headers (results.Meta.Command), in run
// summaries (summary.json's run_args) and in the archive, the templated
// targets a results header keeps, and the database addresses (DSNs) that
// messages name. A secret is replaced by Mark ("REDACTED"); what is around
// it stays, so a reader still sees which flag, header, user and host were
// used.
//
// What is a secret:
//   - the password of a URL's userinfo (postgres://lab:PW@host/db); for a
//     scheme other than postgres, a userinfo without a password too
//     (https://TOKEN@host);
//   - the value of a password-like parameter in a URL's query, a keyword
//     DSN or a NAME=VALUE argument: a name ending in password, passwd,
//     token, secret or api_key/apikey (password=, sslpassword=,
//     access_token=, -set db_password=...);
//   - the value of a header whose name says it carries a credential
//     (Authorization, Proxy-Authorization, Cookie, X-Api-Key, any name
//     holding auth, token, secret, passw, api-key, session, cookie or
//     credential), given by -header or -proxy-header;
//   - the whole value of -secret-header (a header the user marks secret)
//     and of -ui-token and -token.
//
// Args redacts a command line argument by argument (what new files
// record); Text redacts one already joined with spaces (what files and
// archives recorded before, redacted when shown).
package redact

import (
	"regexp"
	"strings"
)

// Mark replaces every secret.
const Mark = "REDACTED"

// secretFlags are flags whose whole value is a secret.
var secretFlags = map[string]bool{"secret-header": true, "ui-token": true, "token": true}

// headerFlags are flags whose value is a "Name: value" header.
var headerFlags = map[string]bool{"header": true, "proxy-header": true, "H": true}

// headerWords make a header name a credential's.
var headerWords = []string{"auth", "token", "secret", "passw", "api-key", "apikey", "api_key", "session", "cookie", "credential"}

// IsSecretHeader says whether a header called name carries a credential.
func IsSecretHeader(name string) bool {
	n := strings.ToLower(strings.TrimSpace(name))
	for _, w := range headerWords {
		if strings.Contains(n, w) {
			return true
		}
	}
	return false
}

// Header is a "Name: value" header line with its value redacted when the
// name is a credential's, or when secret is set.
func Header(line string, secret bool) string {
	name, _, ok := strings.Cut(line, ":")
	if !ok {
		if secret {
			return Mark
		}
		return Text(line)
	}
	if secret || IsSecretHeader(name) {
		return name + ": " + Mark
	}
	return Text(line)
}

// Args is a command line with every secret redacted (a new slice).
func Args(args []string) []string {
	out := make([]string, len(args))
	pending := "" // the flag whose value is the next argument
	for i, a := range args {
		if pending != "" {
			out[i] = flagValue(pending, a)
			pending = ""
			continue
		}
		name, value, hasValue := flagOf(a)
		switch {
		case name == "":
			out[i] = Text(a)
		case hasValue:
			out[i] = a[:len(a)-len(value)] + flagValue(name, value)
		default:
			if secretFlags[name] || headerFlags[name] {
				pending = name
			}
			out[i] = a
		}
	}
	return out
}

// flagOf reads a flag argument: -name, --name, -name=value.
func flagOf(a string) (name, value string, hasValue bool) {
	if !strings.HasPrefix(a, "-") || a == "-" || a == "--" {
		return "", "", false
	}
	s := strings.TrimPrefix(strings.TrimPrefix(a, "-"), "-")
	name, value, hasValue = strings.Cut(s, "=")
	if name == "" || strings.ContainsAny(name, " \t:/") {
		return "", "", false
	}
	return name, value, hasValue
}

// flagValue redacts the value given to flag name.
func flagValue(name, value string) string {
	switch {
	case name == "secret-header":
		return Header(value, true)
	case secretFlags[name]:
		return Mark
	case headerFlags[name]:
		return Header(value, false)
	}
	return Text(value)
}

var (
	// a URL's userinfo with a password: the password runs to the token's
	// last @ (a password may hold an unescaped / or @).
	userPassRE = regexp.MustCompile(`([A-Za-z][A-Za-z0-9+.-]*://)([^\s:/?#@'"]*):([^\s'"]*)@`)
	// a URL's userinfo without a password
	userRE = regexp.MustCompile(`([A-Za-z][A-Za-z0-9+.-]*)://([^\s:/?#@'"]+)@`)
	// NAME=VALUE whose name ends in a secret's word; VALUE quoted ('...'
	// with \' escapes, as libpq's keyword DSNs) or up to &, ; or a space
	paramRE = regexp.MustCompile(`(?i)(^|[^A-Za-z0-9_.-])([A-Za-z0-9_.-]*(?:password|passwd|token|secret|api_?key))(\s*=\s*)('(?:[^'\\]|\\.)*'?|[^\s&;'"]*)`)
	// a header line whose name is a credential's, to the next flag
	headerRE = regexp.MustCompile(`(?i)(^|[\s="'])([A-Za-z0-9_-]*(?:auth|token|secret|passw|api-key|apikey|api_key|session|cookie|credential)[A-Za-z0-9_-]*[ \t]*:[ \t]*)(.*?)(\s--?[A-Za-z]|$)`)
	// a flag whose whole value is secret, in a joined command line
	secretFlagRE = regexp.MustCompile(`(^|\s)(--?(?:ui-token|token)(?:\s+|=))(\S+)`)
	// -secret-header's value, to the next flag
	secretHeaderRE = regexp.MustCompile(`(^|\s)(--?secret-header(?:\s+|=))(.*?)(\s--?[A-Za-z]|$)`)
)

// Text is s (a command line joined with spaces, a DSN, a message) with
// every secret it recognises redacted.
func Text(s string) string {
	if s == "" {
		return s
	}
	s = secretHeaderRE.ReplaceAllStringFunc(s, func(m string) string {
		g := secretHeaderRE.FindStringSubmatch(m)
		name, _, _ := strings.Cut(g[3], ":")
		return g[1] + g[2] + strings.TrimSpace(name) + ": " + Mark + g[4]
	})
	s = secretFlagRE.ReplaceAllString(s, "${1}${2}"+Mark)
	s = headerRE.ReplaceAllStringFunc(s, func(m string) string {
		g := headerRE.FindStringSubmatch(m)
		if g[3] == "" {
			return m
		}
		return g[1] + g[2] + Mark + g[4]
	})
	s = userPassRE.ReplaceAllString(s, "${1}${2}:"+Mark+"@")
	s = userRE.ReplaceAllStringFunc(s, func(m string) string {
		g := userRE.FindStringSubmatch(m)
		if isPostgresScheme(g[1]) || g[2] == Mark {
			return m
		}
		return g[1] + "://" + Mark + "@"
	})
	s = paramRE.ReplaceAllString(s, "${1}${2}${3}"+Mark)
	return s
}

func isPostgresScheme(s string) bool {
	s = strings.ToLower(s)
	return s == "postgres" || s == "postgresql"
}
