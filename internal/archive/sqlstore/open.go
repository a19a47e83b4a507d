package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	_ "github.com/jackc/pgx/v5/stdlib" // registers the "pgx" database/sql driver
	"modernc.org/sqlite"               // registers the "sqlite" database/sql driver

	"github.com/loadlab/loadlab/internal/archive"
	"github.com/loadlab/loadlab/internal/badinput"
)

func init() {
	archive.RegisterOpener(func(ctx context.Context, dsn string, create bool) (archive.Store, error) {
		return Open(ctx, dsn, create)
	})
}

// Store is an archive in a SQLite file or a Postgres database.
type Store struct {
	db   *sql.DB
	d    dialect
	name string // the DSN as errors name it: the path, or the URL without its password
}

var _ archive.Store = (*Store)(nil)

// BusyTimeout is how long a SQLite writer waits for another's transaction
// (two adds at once both land, one after the other).
const BusyTimeout = 60 * time.Second

// Open opens the archive at dsn: a postgres:// URL or a SQLite file path
// (created when create is set and it does not exist). The schema is
// migrated; every error is one line naming the database.
func Open(ctx context.Context, dsn string, create bool) (*Store, error) {
	if dsn == "" {
		return nil, badinput.Field("-db", "no archive given: a SQLite file path or a postgres:// URL")
	}
	s := &Store{name: dsn}
	var err error
	if archive.IsPostgres(dsn) {
		s.d.postgres = true
		if u, perr := url.Parse(dsn); perr == nil {
			s.name = u.Redacted()
		} else {
			return nil, badinput.At(redactAny(dsn), 0, "not a valid postgres:// URL")
		}
		s.db, err = sql.Open("pgx", dsn)
		if err == nil {
			s.db.SetMaxOpenConns(8)
		}
	} else {
		st, serr := os.Stat(dsn)
		switch {
		case serr != nil && errors.Is(serr, fs.ErrNotExist) && !create:
			return nil, badinput.At(dsn, 0, "no archive here (runs are added with loadlab archive add -db %s)", dsn)
		case serr == nil && st.IsDir():
			return nil, badinput.At(dsn, 0, "is a folder, not an archive file")
		}
		q := url.Values{}
		q.Add("_pragma", fmt.Sprintf("busy_timeout(%d)", BusyTimeout.Milliseconds()))
		q.Add("_pragma", "journal_mode(WAL)")
		q.Add("_pragma", "synchronous(NORMAL)")
		q.Add("_pragma", "foreign_keys(1)")
		q.Add("_txlock", "immediate")
		s.db, err = sql.Open("sqlite", "file:"+(&url.URL{Path: dsn}).EscapedPath()+"?"+q.Encode())
	}
	if err != nil {
		return nil, s.dbError(err)
	}
	if err := s.db.PingContext(ctx); err != nil {
		s.db.Close()
		return nil, s.dbError(err)
	}
	if err := s.migrate(ctx); err != nil {
		s.db.Close()
		return nil, err
	}
	return s, nil
}

// Close releases the database.
func (s *Store) Close() error { return s.db.Close() }

// dbError turns a driver error into one line naming the database, as bad
// input when it is the database given that is at fault (unreachable,
// password refused, not an archive, damaged).
func (s *Store) dbError(err error) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	msg := oneLine(err)
	var pe *pgconn.PgError
	switch {
	case errors.As(err, &pe) && (pe.Code == "28P01" || pe.Code == "28000"):
		return badinput.At(s.name, 0, "Postgres refused the login: %s", pe.Message)
	case errors.As(err, &pe) && pe.Code == "3D000":
		return badinput.At(s.name, 0, "no such Postgres database: %s", pe.Message)
	case errors.As(err, &pe):
		return fmt.Errorf("%s: %s", s.name, msg)
	case s.d.postgres && isConnectError(err):
		return badinput.At(s.name, 0, "cannot reach Postgres: %s", msg)
	case !s.d.postgres && (sqliteCode(err) == sqliteNotADB || sqliteCode(err) == sqliteCorrupt):
		return badinput.At(s.name, 0, "not a loadlab archive, or a damaged one (%s)", msg)
	case !s.d.postgres && sqliteCode(err) == sqliteCantOpen:
		return badinput.At(s.name, 0, "cannot open the archive file (%s)", msg)
	}
	return fmt.Errorf("%s: %s", s.name, msg)
}

// SQLite's primary result codes for a file that is no database, a damaged
// one, and one that cannot be opened.
const (
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
	return errors.As(err, &ce) || strings.Contains(err.Error(), "connect")
}

// oneLine is err's text on one line.
func oneLine(err error) string {
	return strings.Join(strings.Fields(strings.ReplaceAll(err.Error(), "\n", " ")), " ")
}

// redactAny hides what looks like a password in a DSN that did not parse.
func redactAny(dsn string) string {
	at := strings.LastIndex(dsn, "@")
	scheme := strings.Index(dsn, "://")
	if at < 0 || scheme < 0 {
		return dsn
	}
	userinfo := dsn[scheme+3 : at]
	if u, _, ok := strings.Cut(userinfo, ":"); ok {
		return dsn[:scheme+3] + u + ":xxxxx" + dsn[at:]
	}
	return dsn
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
