package archive

import (
	"context"
	"errors"
	"net/url"
	"strings"
	"sync"
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

// Open opens (creating when needed) the archive at dsn: a file path
// (SQLite) or a postgres:// (or postgresql://) URL. Its schema is migrated
// to the current version; a database from a newer loadlab is refused.
// Errors are one line, naming the database without its password.
func Open(ctx context.Context, dsn string) (Store, error) { return open(ctx, dsn, true) }

// OpenExisting is Open for readers: a SQLite file that does not exist is
// refused instead of created.
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

// IsPostgres reports whether dsn names a Postgres database rather than a
// SQLite file.
func IsPostgres(dsn string) bool {
	return strings.HasPrefix(dsn, "postgres://") || strings.HasPrefix(dsn, "postgresql://")
}

// Redact is dsn as messages may show it: a Postgres URL without its
// password.
func Redact(dsn string) string {
	if !IsPostgres(dsn) {
		return dsn
	}
	u, err := url.Parse(dsn)
	if err != nil {
		return "postgres://(unparsable URL)"
	}
	return u.Redacted()
}
