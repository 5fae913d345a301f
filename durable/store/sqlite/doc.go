// Package sqlite is the embedded journal store of package durable: one
// SQLite file (pure Go, modernc.org/sqlite; no cgo) in WAL mode with a busy
// timeout, so several processes may open the same journal, and with the
// schema version kept in the database (PRAGMA user_version) so a newer
// program migrates an older file in place.
package sqlite
