// Package sqlstore is the archive's storage: one schema, migrated by
// version, in SQLite (a file on disk, through the pure-Go modernc.org/sqlite
// driver so the binary stays CGO-free) or Postgres (through pgx), with
// small dialect differences and one code path. Runs, their labels, steps
// (figures, text report, encoded HDR histogram), per-scenario figures and
// raw files (compressed unless already compressed, in 1 MiB chunks) all
// live in the database. It registers itself as archive.Open's opener.
package sqlstore
