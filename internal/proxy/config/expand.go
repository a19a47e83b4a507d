package config

import (
	"bytes"
	"fmt"
	"regexp"
	"strings"

	"github.com/loadlab/loadlab/internal/badinput"
)

// envRef matches ${NAME} and ${NAME:-default} in a config file.
var envRef = regexp.MustCompile(`\$\{([A-Za-z_][A-Za-z0-9_]*)(:-([^}\n]*))?\}`)

// expandEnv replaces ${NAME} with the environment variable NAME, and
// ${NAME:-default} with NAME or, when NAME is unset or empty, default, so
// one config file serves wherever its upstreams listen (e.g. upstream:
// ${ORIGIN_URL:-http://127.0.0.1:8080}). An unset variable without a
// default, or a value with a line break, is an error naming the line.
// Other text, including a lone $, is left as it is.
func expandEnv(data []byte, source string, lookup func(string) (string, bool)) ([]byte, error) {
	var err error
	out := envRef.ReplaceAllFunc(data, func(ref []byte) []byte {
		if err != nil {
			return ref
		}
		m := envRef.FindSubmatch(ref)
		name, hasDefault, def := string(m[1]), len(m[2]) > 0, string(m[3])
		v, ok := lookup(name)
		if !ok || v == "" {
			if !hasDefault {
				err = refError(data, ref, source, fmt.Sprintf("${%s} is not set in the environment (set it, or give a default: ${%s:-VALUE})", name, name))
				return ref
			}
			v = def
		}
		if strings.ContainsAny(v, "\r\n") {
			err = refError(data, ref, source, fmt.Sprintf("${%s} holds a line break", name))
			return ref
		}
		return []byte(v)
	})
	return out, err
}

func refError(data, ref []byte, source, msg string) error {
	line := bytes.Count(data[:bytes.Index(data, ref)], []byte("\n")) + 1
	return &badinput.Error{File: source, Line: line, Msg: msg}
}
