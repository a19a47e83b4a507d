package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/loadlab/loadlab/internal/badinput"
)

// figureCols are the headline figures' columns, in runs, steps and
// scenarios alike (archive.Figures).
const figureCols = `requests BIGINT NOT NULL, rate {{real}} NOT NULL, throughput {{real}} NOT NULL, success {{real}} NOT NULL,
	p50 BIGINT NOT NULL, p90 BIGINT NOT NULL, p95 BIGINT NOT NULL, p99 BIGINT NOT NULL, pmax BIGINT NOT NULL, pmean BIGINT NOT NULL,
	lag_p99 BIGINT NOT NULL, dropped BIGINT NOT NULL, codes TEXT NOT NULL`

// migrations are the schema's versions: migrations[i] takes a database
// from version i to i+1. Append only; never edit a released one.
var migrations = [][]string{
	{ // 1: runs, labels, steps, per-scenario figures, files in chunks
		// the columns List and Points read come first, the long texts last:
		// SQLite reads a row's columns in order, and a long plan spills
		// into overflow pages a list should never touch
		`CREATE TABLE runs (seq {{serial}}, id TEXT NOT NULL UNIQUE, slug TEXT NOT NULL, name TEXT NOT NULL, name_lower TEXT NOT NULL,
			source TEXT NOT NULL, started BIGINT NOT NULL, ended BIGINT NOT NULL, added BIGINT NOT NULL, labels TEXT NOT NULL,
			` + figureCols + `, content TEXT NOT NULL UNIQUE, command TEXT NOT NULL, machine TEXT NOT NULL, plan TEXT NOT NULL)`,
		`CREATE INDEX runs_started ON runs (started, seq)`,
		`CREATE INDEX runs_name ON runs (name_lower, seq)`,
		`CREATE INDEX runs_p99 ON runs (p99, seq)`,
		`CREATE INDEX runs_success ON runs (success, seq)`,
		`CREATE INDEX runs_requests ON runs (requests, seq)`,
		`CREATE TABLE labels (run_seq BIGINT NOT NULL REFERENCES runs (seq) ON DELETE CASCADE, key TEXT NOT NULL, value TEXT NOT NULL,
			PRIMARY KEY (run_seq, key))`,
		`CREATE INDEX labels_key_value ON labels (key, value, run_seq)`,
		`CREATE TABLE steps (run_seq BIGINT NOT NULL REFERENCES runs (seq) ON DELETE CASCADE, ord INTEGER NOT NULL, idx INTEGER NOT NULL,
			scenario TEXT NOT NULL, name TEXT NOT NULL, started BIGINT NOT NULL, ended BIGINT NOT NULL, ` + figureCols + `,
			text TEXT NOT NULL, hist {{blob}}, PRIMARY KEY (run_seq, idx, scenario))`,
		`CREATE TABLE scenarios (run_seq BIGINT NOT NULL REFERENCES runs (seq) ON DELETE CASCADE, scenario TEXT NOT NULL, ` + figureCols + `,
			PRIMARY KEY (run_seq, scenario))`,
		`CREATE INDEX scenarios_scenario ON scenarios (scenario, run_seq)`,
		`CREATE TABLE files (run_seq BIGINT NOT NULL REFERENCES runs (seq) ON DELETE CASCADE, ord INTEGER NOT NULL, name TEXT NOT NULL,
			size BIGINT NOT NULL, PRIMARY KEY (run_seq, name))`,
		`CREATE TABLE chunks (run_seq BIGINT NOT NULL REFERENCES runs (seq) ON DELETE CASCADE, name TEXT NOT NULL, n INTEGER NOT NULL,
			codec TEXT NOT NULL, data {{blob}} NOT NULL, PRIMARY KEY (run_seq, name, n))`,
	},
	{ // 2: a closed loop's users (archive.Run.Users, a JSON array; '' for a paced run and the runs stored before)
		`ALTER TABLE runs ADD COLUMN users TEXT NOT NULL DEFAULT ''`,
	},
	{ // 3: the fewest and the most of a closed loop's users (0 for a paced run), which the "load" sort orders by; filled by backfills[2]
		`ALTER TABLE runs ADD COLUMN users_min BIGINT NOT NULL DEFAULT 0`,
		`ALTER TABLE runs ADD COLUMN users_max BIGINT NOT NULL DEFAULT 0`,
	},
	{ // 4: what the machine did to each run, step and scenario (runblock.Health as JSON; '' for the runs stored before: Unknown),
		// and each step's scenario cut into time blocks (runblock.EncodeBlocks; NULL for the runs stored before)
		`ALTER TABLE runs ADD COLUMN health TEXT NOT NULL DEFAULT ''`,
		`ALTER TABLE steps ADD COLUMN health TEXT NOT NULL DEFAULT ''`,
		`ALTER TABLE steps ADD COLUMN blocks {{blob}}`,
		`ALTER TABLE scenarios ADD COLUMN health TEXT NOT NULL DEFAULT ''`,
	},
	{ // 5: accepted changes and baselines (archive.Accepter): a CI gate judges newer runs against the level from an accepted run on
		`CREATE TABLE accepted (run_seq BIGINT NOT NULL PRIMARY KEY REFERENCES runs (seq) ON DELETE CASCADE, note TEXT NOT NULL, at BIGINT NOT NULL)`,
	},
	{ // 6: the users of the closed loops stored before the archive kept them, as their slug named them (filled into users_min
		// and users_max by backfills[2]): the fewest and the most, so that a run is read as it is stored
		`UPDATE runs SET users = '[' || CAST(users_min AS TEXT) || ']' WHERE users = '' AND users_max > 0 AND users_min = users_max`,
		`UPDATE runs SET users = '[' || CAST(users_min AS TEXT) || ',' || CAST(users_max AS TEXT) || ']' WHERE users = '' AND users_max > users_min AND users_min > 0`,
	},
}

// backfills[i], when set, fills what migrations[i] added to the rows
// already stored, in the same transaction, where SQL alone cannot.
var backfills = map[int]func(ctx context.Context, s *Store, tx *sql.Tx) error{
	2: backfillUsersRange,
}

// SchemaVersion is the schema version this loadlab writes.
var SchemaVersion = len(migrations)

// version reads the schema version (0: an empty database).
func (s *Store) version(ctx context.Context, q interface {
	QueryRowContext(context.Context, string, ...any) *sql.Row
}) (int, error) {
	var v int
	err := q.QueryRowContext(ctx, "SELECT version FROM schema_version").Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, nil
	}
	return v, err
}

// migrate brings the schema to SchemaVersion, refusing a newer one.
func (s *Store) migrate(ctx context.Context) error {
	v, err := s.version(ctx, s.db)
	if err == nil && v == SchemaVersion {
		return nil // the common case: no write lock taken
	}
	if err == nil && v > SchemaVersion {
		return s.newer(v)
	}
	if s.readOnly { // a reader never writes, not even a migration
		if err != nil {
			return s.dbError(err)
		}
		return badinput.At(s.name, 0, "the archive's schema is version %d, older than this loadlab's (%d): any loadlab archive add upgrades it", v, SchemaVersion)
	}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return s.dbError(err)
	}
	defer tx.Rollback()
	if s.d.postgres { // one migrator at a time across every client of the database
		if _, err := tx.ExecContext(ctx, "SELECT pg_advisory_xact_lock(7466839201)"); err != nil {
			return s.dbError(err)
		}
	}
	if _, err := tx.ExecContext(ctx, "CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)"); err != nil {
		return s.dbError(err)
	}
	v, err = s.version(ctx, tx)
	if err != nil {
		return s.dbError(err)
	}
	if v > SchemaVersion {
		return s.newer(v)
	}
	if v == 0 {
		if _, err := tx.ExecContext(ctx, "INSERT INTO schema_version (version) VALUES (0)"); err != nil {
			return s.dbError(err)
		}
	}
	for ; v < SchemaVersion; v++ {
		for _, q := range migrations[v] {
			if _, err := tx.ExecContext(ctx, s.d.ddl(q)); err != nil {
				return fmt.Errorf("%s: migrating the schema to version %d: %v", s.name, v+1, s.line(err))
			}
		}
		if fill := backfills[v]; fill != nil {
			if err := fill(ctx, s, tx); err != nil {
				return fmt.Errorf("%s: migrating the schema to version %d: %v", s.name, v+1, s.line(err))
			}
		}
	}
	if _, err := tx.ExecContext(ctx, s.d.rebind("UPDATE schema_version SET version = ?"), SchemaVersion); err != nil {
		return s.dbError(err)
	}
	if err := tx.Commit(); err != nil {
		return s.dbError(err)
	}
	return nil
}

func (s *Store) newer(v int) error {
	return badinput.At(s.name, 0, "the archive's schema is version %d, newer than this loadlab knows (%d): use a newer loadlab", v, SchemaVersion)
}
