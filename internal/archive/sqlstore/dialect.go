package sqlstore

import (
	"strconv"
	"strings"
)

// dialect is what differs between SQLite and Postgres.
type dialect struct {
	postgres bool
}

// rebind turns the ? placeholders every query is written with into
// Postgres's $1, $2, ...
func (d dialect) rebind(q string) string {
	if !d.postgres {
		return q
	}
	var b strings.Builder
	n := 0
	for i := 0; i < len(q); i++ {
		if q[i] == '?' {
			n++
			b.WriteByte('$')
			b.WriteString(strconv.Itoa(n))
			continue
		}
		b.WriteByte(q[i])
	}
	return b.String()
}

// ddl fills a schema statement's type placeholders.
func (d dialect) ddl(q string) string {
	r := strings.NewReplacer("{{serial}}", "INTEGER PRIMARY KEY", "{{blob}}", "BLOB", "{{real}}", "REAL")
	if d.postgres {
		r = strings.NewReplacer("{{serial}}", "BIGSERIAL PRIMARY KEY", "{{blob}}", "BYTEA", "{{real}}", "DOUBLE PRECISION")
	}
	return r.Replace(q)
}
