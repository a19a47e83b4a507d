package sqlstore

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/stdlib"
	"modernc.org/sqlite" // registers the "sqlite" database/sql driver

	"github.com/loadlab/loadlab/internal/archive"
	"github.com/loadlab/loadlab/internal/badinput"
	"github.com/loadlab/loadlab/internal/redact"
)

func init() {
	archive.RegisterOpener(func(ctx context.Context, dsn string, create bool) (archive.Store, error) {
		return Open(ctx, dsn, create)
	})
}

// Store is an archive in a SQLite file or a Postgres database.
type Store struct {
	db       *sql.DB
	d        dialect
	name     string // the DSN as errors name it: the path, or the address without its password
	dsn      string // the DSN as given: never printed (Scrub removes its secrets from driver errors)
	readOnly bool
}

var _ archive.Store = (*Store)(nil)

// BusyTimeout is how long a SQLite writer waits for another's transaction
// (two adds at once both land, one after the other).
const BusyTimeout = 60 * time.Second

// MaxConns bounds the connections a Store holds open to its database (the
// site's requests wait for one; see site.Options.Wait).
const MaxConns = 8

// Open opens the archive at dsn: a postgres:// URL, a Postgres keyword DSN
// (host=... dbname=...) or a SQLite file path. With create, a missing
// SQLite file is created and the schema migrated; without it the database
// is opened read-only (SQLite mode=ro and query_only; Postgres read-only
// transactions) and must already be a loadlab archive of this schema
// version. A database holding another program's tables is refused either
// way. Every error is one line naming the database without its password.
func Open(ctx context.Context, dsn string, create bool) (*Store, error) {
	if strings.TrimSpace(dsn) == "" {
		return nil, badinput.Field("-db", "no archive given: a SQLite file path or a postgres:// URL")
	}
	s := &Store{name: redact.DSN(dsn), dsn: dsn, readOnly: !create}
	var err error
	switch {
	case archive.IsPostgres(dsn):
		s.d.postgres = true
		cfg, perr := pgx.ParseConfig(dsn)
		if perr != nil {
			return nil, badinput.At(s.name, 0, "not a valid Postgres address (a postgres:// URL or host=... dbname=... pairs): %s", s.line(perr))
		}
		if s.readOnly {
			cfg.RuntimeParams["default_transaction_read_only"] = "on"
		}
		s.db = stdlib.OpenDB(*cfg)
	case archive.IsURL(dsn):
		return nil, badinput.At(s.name, 0, "not an archive address: give a SQLite file path, a postgres:// URL or a Postgres keyword DSN (host=... dbname=...)")
	default:
		st, serr := os.Stat(dsn)
		switch {
		case serr != nil && errors.Is(serr, fs.ErrNotExist) && !create:
			return nil, badinput.At(dsn, 0, "no archive here (runs are added with loadlab archive add -db %s)", dsn)
		case serr == nil && st.IsDir():
			return nil, badinput.At(dsn, 0, "is a folder, not an archive file")
		}
		q := url.Values{}
		q.Add("_pragma", fmt.Sprintf("busy_timeout(%d)", BusyTimeout.Milliseconds()))
		if s.readOnly {
			q.Add("mode", "ro")
			q.Add("_pragma", "query_only(1)")
		} else {
			q.Add("_pragma", "synchronous(NORMAL)")
			q.Add("_txlock", "immediate")
		}
		q.Add("_pragma", "foreign_keys(1)")
		s.db, err = sql.Open("sqlite", "file:"+(&url.URL{Path: dsn}).EscapedPath()+"?"+q.Encode())
	}
	if err != nil {
		return nil, s.dbError(err)
	}
	s.db.SetMaxOpenConns(MaxConns)
	s.db.SetMaxIdleConns(MaxConns)
	s.db.SetConnMaxIdleTime(time.Minute)
	if err := s.db.PingContext(ctx); err != nil {
		s.db.Close()
		return nil, s.dbError(err)
	}
	if err := s.checkOwn(ctx); err != nil {
		s.db.Close()
		return nil, err
	}
	if !s.d.postgres && !s.readOnly {
		// only now, the file known to be an archive or empty: the journal
		// mode is written into the file
		if _, err := s.db.ExecContext(ctx, "PRAGMA journal_mode=WAL"); err != nil {
			s.db.Close()
			return nil, s.dbError(err)
		}
	}
	if err := s.migrate(ctx); err != nil {
		s.db.Close()
		return nil, err
	}
	return s, nil
}

// checkOwn refuses a database that is not a loadlab archive: for a reader,
// one without loadlab's schema_version table; for a writer, one that holds
// tables of another program (an empty database becomes an archive).
// Nothing is written either way.
func (s *Store) checkOwn(ctx context.Context) error {
	tables := "SELECT count(*) FROM sqlite_master WHERE type = 'table'"
	own := tables + " AND name = 'schema_version'"
	if s.d.postgres {
		tables = "SELECT count(*) FROM information_schema.tables WHERE table_schema = current_schema()"
		own = tables + " AND table_name = 'schema_version'"
	}
	var nAll, nOwn int
	if err := s.db.QueryRowContext(ctx, tables).Scan(&nAll); err != nil {
		return s.dbError(err)
	}
	if err := s.db.QueryRowContext(ctx, own).Scan(&nOwn); err != nil {
		return s.dbError(err)
	}
	switch {
	case nOwn > 0:
		return nil
	case s.readOnly && nAll == 0:
		return badinput.At(s.name, 0, "not a loadlab archive: the database is empty (runs are added with loadlab archive add); nothing was written to it")
	case s.readOnly:
		return badinput.At(s.name, 0, "not a loadlab archive: it holds %d tables of another program and no loadlab schema; nothing was written to it", nAll)
	case nAll > 0:
		return badinput.At(s.name, 0, "not a loadlab archive: it holds %d tables of another program; add runs to a new file or an empty database (nothing was written to it)", nAll)
	}
	return nil
}

// Close releases the database.
func (s *Store) Close() error { return s.db.Close() }

// line is a driver error on one line with every secret of the DSN removed
// (a driver may quote the DSN or its password).
func (s *Store) line(err error) string { return redact.Scrub(oneLine(err), s.dsn) }

// kindError is a database error marked archive.ErrDatabase and, when
// known, archive.ErrUnavailable or archive.ErrDamaged.
type kindError struct {
	err  error
	kind error
}

func (e *kindError) Error() string   { return e.err.Error() }
func (e *kindError) Unwrap() []error { return []error{e.err, e.kind, archive.ErrDatabase} }

// dbError turns a driver error into one line naming the database, as bad
// input when it is the database given that is at fault (unreachable,
// password refused, not an archive, damaged), marked with its kind.
func (s *Store) dbError(err error) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	msg := s.line(err)
	var pe *pgconn.PgError
	var out error
	kind := archive.ErrDatabase
	switch {
	case errors.As(err, &pe) && (pe.Code == "28P01" || pe.Code == "28000"):
		out = badinput.At(s.name, 0, "Postgres refused the login: %s", redact.Scrub(pe.Message, s.dsn))
	case errors.As(err, &pe) && pe.Code == "3D000":
		out = badinput.At(s.name, 0, "no such Postgres database: %s", redact.Scrub(pe.Message, s.dsn))
	case errors.As(err, &pe) && (strings.HasPrefix(pe.Code, "08") || strings.HasPrefix(pe.Code, "53") || strings.HasPrefix(pe.Code, "57P")):
		out, kind = badinput.At(s.name, 0, "Postgres cannot serve now: %s", msg), archive.ErrUnavailable
	case errors.As(err, &pe) && (strings.HasPrefix(pe.Code, "XX") || pe.Code == "42P01" || pe.Code == "42703"):
		out, kind = badinput.At(s.name, 0, "not a loadlab archive, or a damaged one (%s)", msg), archive.ErrDamaged
	case errors.As(err, &pe):
		out = fmt.Errorf("%s: %s", s.name, msg)
	case s.d.postgres && isConnectError(err):
		out, kind = badinput.At(s.name, 0, "cannot reach Postgres: %s", msg), archive.ErrUnavailable
	case !s.d.postgres && (sqliteCode(err) == sqliteNotADB || sqliteCode(err) == sqliteCorrupt):
		out, kind = badinput.At(s.name, 0, "not a loadlab archive, or a damaged one (%s)", msg), archive.ErrDamaged
	case !s.d.postgres && sqliteCode(err) == sqliteCantOpen:
		out = badinput.At(s.name, 0, "cannot open the archive file (%s)", msg)
	case !s.d.postgres && (sqliteCode(err) == sqliteBusy || sqliteCode(err) == sqliteLocked):
		out, kind = fmt.Errorf("%s: %s", s.name, msg), archive.ErrUnavailable
	default:
		out = fmt.Errorf("%s: %s", s.name, msg)
	}
	return &kindError{err: out, kind: kind}
}

// SQLite's primary result codes for a file that is no database, a damaged
// one, and one that cannot be opened.
const (
	sqliteBusy     = 5
	sqliteLocked   = 6
	sqliteCorrupt  = 11
	sqliteCantOpen = 14
	sqliteNotADB   = 26
)

// sqliteCode is the primary result code of a SQLite error (0 for others).
func sqliteCode(err error) int {
	var se *sqlite.Error
	if errors.As(err, &se) {
		return se.Code() & 0xff
	}
	return 0
}

// isConnectError says the server could not be reached or talked to.
func isConnectError(err error) bool {
	var ce *pgconn.ConnectError
	var ne net.Error
	if errors.As(err, &ce) || errors.As(err, &ne) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, driver.ErrBadConn) {
		return true
	}
	m := err.Error()
	for _, s := range []string{"connect", "conn closed", "connection reset", "broken pipe", "unexpected EOF"} {
		if strings.Contains(m, s) {
			return true
		}
	}
	return false
}

// oneLine is err's text on one line.
func oneLine(err error) string {
	return strings.Join(strings.Fields(strings.ReplaceAll(err.Error(), "\n", " ")), " ")
}

// Checkpoint folds SQLite's write-ahead log into the database file (so its
// size is the archive's); a no-op on Postgres.
func (s *Store) Checkpoint(ctx context.Context) error {
	if s.d.postgres {
		return nil
	}
	_, err := s.db.ExecContext(ctx, "PRAGMA wal_checkpoint(TRUNCATE)")
	return s.dbError(err)
}
