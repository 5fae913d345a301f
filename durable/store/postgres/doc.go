// Package postgres is the shared journal store of package durable: one
// PostgreSQL database that several host replicas use at once, so that an
// execution started on one replica can be approved, rejected, expired or
// rolled back from any other, and no action is applied twice.
//
// Every state change is one conditional statement that PostgreSQL
// serializes on the row: UPDATE … WHERE status = ANY(from) (a concurrent
// update makes the loser re-check its WHERE on the new row version and
// match nothing), INSERT … WHERE EXISTS (… status = 'running' FOR SHARE),
// and UPDATE … FOR UPDATE SKIP LOCKED for the set-wide expiry and pruning.
// Nothing is read in Go and then written back.
//
// The schema is versioned in the database (table codemode_schema_version)
// and migrated by Open under pg_advisory_xact_lock, so replicas that start
// at the same moment migrate one after the other.
package postgres
