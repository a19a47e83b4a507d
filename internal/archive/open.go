package archive

import (
	"context"
	"errors"
	"strings"
	"sync"

	"github.com/loadlab/loadlab/internal/redact"
)

// Opener opens the archive a DSN names; create says whether a missing
// SQLite file may be created. Package archive/sqlstore registers the one
// loadlab uses (SQLite paths and postgres:// URLs).
type Opener func(ctx context.Context, dsn string, create bool) (Store, error)

var (
	openerMu sync.Mutex
	opener   Opener
)

// RegisterOpener sets the Opener Open and OpenExisting use. sqlstore calls
// it from its init, so a program that opens archives imports
// github.com/loadlab/loadlab/internal/archive/sqlstore (blank is enough).
func RegisterOpener(o Opener) {
	openerMu.Lock()
	defer openerMu.Unlock()
	opener = o
}

// Open opens (creating when needed) the archive at dsn for adding runs: a
// file path (SQLite), a postgres:// (or postgresql://) URL or a Postgres
// keyword DSN (host=... dbname=...). Its schema is migrated to the current
// version; a database from a newer loadlab, and one that holds another
// program's tables, are refused. Errors are one line, naming the database
// without its password.
func Open(ctx context.Context, dsn string) (Store, error) { return open(ctx, dsn, true) }

// OpenExisting is Open for readers (list, show, trend, the site): the
// database is opened read-only and never written to. A SQLite file that
// does not exist, a database that is not a loadlab archive, and one whose
// schema is older than this loadlab's (any add upgrades it) are refused.
func OpenExisting(ctx context.Context, dsn string) (Store, error) { return open(ctx, dsn, false) }

func open(ctx context.Context, dsn string, create bool) (Store, error) {
	openerMu.Lock()
	o := opener
	openerMu.Unlock()
	if o == nil {
		return nil, errors.New("archive: no storage registered (import internal/archive/sqlstore)")
	}
	return o(ctx, dsn, create)
}

// pgKeywords are libpq's connection keywords: a DSN made of keyword=value
// pairs naming one of them is a Postgres keyword DSN, never a file path.
var pgKeywords = map[string]bool{"host": true, "hostaddr": true, "port": true, "dbname": true, "user": true, "password": true,
	"passfile": true, "sslmode": true, "sslcert": true, "sslkey": true, "sslrootcert": true, "sslpassword": true, "sslcrl": true,
	"connect_timeout": true, "application_name": true, "options": true, "target_session_attrs": true, "service": true,
	"channel_binding": true, "krbsrvname": true, "gssencmode": true, "load_balance_hosts": true}

// IsPostgres reports whether dsn names a Postgres database (a postgres://
// or postgresql:// URL, or a keyword DSN such as "host=db dbname=runs")
// rather than a SQLite file.
func IsPostgres(dsn string) bool {
	low := strings.ToLower(dsn)
	if strings.HasPrefix(low, "postgres://") || strings.HasPrefix(low, "postgresql://") {
		return true
	}
	for _, f := range strings.Fields(dsn) {
		if k, _, ok := strings.Cut(f, "="); ok && pgKeywords[strings.ToLower(strings.TrimSpace(k))] {
			return true
		}
	}
	return false
}

// IsURL reports whether dsn is a URL (scheme://...): loadlab's archives are
// SQLite paths and Postgres addresses only, so any other URL is refused
// rather than taken for a file name.
func IsURL(dsn string) bool {
	scheme, _, ok := strings.Cut(dsn, "://")
	if !ok || scheme == "" {
		return false
	}
	for _, c := range scheme {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '+' || c == '-' || c == '.') {
			return false
		}
	}
	return true
}

// Redact is dsn as messages may show it: without its password, in any of
// its forms (package redact).
func Redact(dsn string) string { return redact.DSN(dsn) }
