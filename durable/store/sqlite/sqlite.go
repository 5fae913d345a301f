package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/codemode-go/codemode/durable/store"
	"github.com/codemode-go/codemode/durable/store/internal/columns"
	_ "modernc.org/sqlite" // registers the "sqlite" database/sql driver
)

// fileStore is a store.Store on one SQLite file. It is safe for concurrent
// use, including by other processes that open the same file.
type fileStore struct {
	db *sql.DB

	mu    sync.Mutex
	stmts map[string]*sql.Stmt // reads prepared on the pool, by query text

	// The store writes on one connection of its own, one write at a time
	// (SQLite has one writer; the store's own writers wait on wmu instead
	// of polling the lock under busy_timeout), with its statements,
	// transaction control included, prepared once: preparing BEGIN and
	// COMMIT for each transaction (database/sql's BeginTx) cost more than
	// the statements between them.
	wmu    sync.Mutex
	w      *sql.Conn
	wstmts map[string]*sql.Stmt // prepared on w, by query text
}

var (
	_ store.Store         = (*fileStore)(nil)
	_ store.EntryBatcher  = (*fileStore)(nil)
	_ store.RuntimeLister = (*fileStore)(nil)
)

// Options are the store's settings.
type Options struct {
	// BusyTimeout is how long a statement waits for another connection's
	// write lock before failing; 0 means 10 seconds.
	BusyTimeout time.Duration
}

// Open opens (creating when absent) the journal at path and migrates its
// schema to the current version. It returns an error when the file cannot
// be opened, is not a SQLite database, or was written by a newer program
// (a schema version this one does not know). The store is safe for
// concurrent use, including by other processes that open the same file,
// and implements store.EntryBatcher and store.RuntimeLister. To inspect the file (backups,
// VACUUM), open it with database/sql and the modernc.org/sqlite driver;
// writing the journal's tables directly bypasses the conditional
// transitions that keep it consistent.
func Open(ctx context.Context, path string, opts Options) (store.Store, error) {
	if path == "" {
		return nil, errors.New("sqlite: the journal path is empty")
	}
	busy := opts.BusyTimeout
	if busy <= 0 {
		busy = 10 * time.Second
	}
	q := url.Values{}
	q.Add("_pragma", fmt.Sprintf("busy_timeout(%d)", busy.Milliseconds()))
	// Before journal_mode: a new file's first table fixes it. Pages that
	// PruneExecutions frees are returned to the file system
	// (PRAGMA incremental_vacuum). A file created before this setting
	// keeps auto_vacuum off until one VACUUM: freed pages are reused, not
	// returned.
	q.Add("_pragma", "auto_vacuum(INCREMENTAL)")
	q.Add("_pragma", "journal_mode(WAL)")
	q.Add("_pragma", "foreign_keys(1)")
	q.Add("_pragma", "synchronous(NORMAL)")
	q.Set("_txlock", "immediate")
	dsn := "file:" + (&url.URL{Path: path}).EscapedPath() + "?" + q.Encode()
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, fmt.Errorf("sqlite: opening %s: %w", path, err)
	}
	// SQLite has one writer at a time; a few connections serve readers
	// while one writes (WAL).
	db.SetMaxOpenConns(4)
	db.SetMaxIdleConns(4)
	s := &fileStore{db: db, stmts: map[string]*sql.Stmt{}, wstmts: map[string]*sql.Stmt{}}
	if err := s.migrate(ctx); err != nil {
		_ = db.Close()
		return nil, fmt.Errorf("sqlite: %s: %w", path, err)
	}
	if s.w, err = db.Conn(ctx); err != nil {
		_ = db.Close()
		return nil, fmt.Errorf("sqlite: %s: %w", path, err)
	}
	return s, nil
}

// Close closes the database.
func (s *fileStore) Close() error {
	s.mu.Lock()
	for _, st := range s.stmts {
		_ = st.Close()
	}
	s.stmts = map[string]*sql.Stmt{}
	s.mu.Unlock()
	s.wmu.Lock()
	for _, st := range s.wstmts {
		_ = st.Close()
	}
	s.wstmts = map[string]*sql.Stmt{}
	if s.w != nil {
		_ = s.w.Close()
		s.w = nil
	}
	s.wmu.Unlock()
	return s.db.Close()
}

// stmt returns query prepared once for the store (database/sql prepares it
// again on each connection that runs it, once): parsing a statement costs
// about as much as running it. Queries are the package's own texts, a small
// fixed set.
func (s *fileStore) stmt(ctx context.Context, query string) (*sql.Stmt, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if st := s.stmts[query]; st != nil {
		return st, nil
	}
	st, err := s.db.PrepareContext(ctx, query)
	if err != nil {
		return nil, err
	}
	s.stmts[query] = st
	return st, nil
}

// detach returns ctx without its cancellation, or ctx's error when it is
// done already. The store's statements run detached: a statement that
// started runs to its end (a journal statement takes tens of
// microseconds; a wait for another process's write lock is bounded by
// Options.BusyTimeout). With a cancellable context the driver starts a
// goroutine per statement to interrupt it (modernc.org/sqlite's
// interruptOnDone) and database/sql another per transaction or row set,
// which cost more CPU than the journal's statements themselves (30 us of
// 70 per recorded call entry, measured by BenchmarkCallRecord).
func detach(ctx context.Context) (context.Context, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return context.WithoutCancel(ctx), nil
}

// writer runs statements on the store's writing connection (wmu held).
type writer struct {
	s   *fileStore
	ctx context.Context
}

// stmt returns query prepared on the writing connection.
func (w writer) stmt(query string) (*sql.Stmt, error) {
	if st := w.s.wstmts[query]; st != nil {
		return st, nil
	}
	st, err := w.s.w.PrepareContext(w.ctx, query)
	if err != nil {
		return nil, err
	}
	w.s.wstmts[query] = st
	return st, nil
}

func (w writer) exec(query string, args ...any) (sql.Result, error) {
	st, err := w.stmt(query)
	if err != nil {
		return nil, err
	}
	return st.ExecContext(w.ctx, args...)
}

func (w writer) query(query string, args ...any) (*sql.Rows, error) {
	st, err := w.stmt(query)
	if err != nil {
		return nil, err
	}
	return st.QueryContext(w.ctx, args...)
}

// write runs fn on the writing connection, alone.
func (s *fileStore) write(ctx context.Context, fn func(w writer) error) error {
	ctx, err := detach(ctx)
	if err != nil {
		return err
	}
	s.wmu.Lock()
	defer s.wmu.Unlock()
	if s.w == nil {
		return errors.New("sqlite: the store is closed")
	}
	return fn(writer{s: s, ctx: ctx})
}

// writeTx runs fn in one transaction on the writing connection: BEGIN
// IMMEDIATE takes the file's write lock at once (another process may
// hold it: busy_timeout), fn's statements, COMMIT; ROLLBACK when fn or
// the commit fails.
func (s *fileStore) writeTx(ctx context.Context, fn func(w writer) error) error {
	return s.write(ctx, func(w writer) error {
		if _, err := w.exec("BEGIN IMMEDIATE"); err != nil {
			return err
		}
		err := fn(w)
		if err == nil {
			_, err = w.exec("COMMIT")
		}
		if err != nil {
			_, _ = w.exec("ROLLBACK") // fails harmlessly when the commit ended the transaction
		}
		return err
	})
}

// exec runs one write statement on the writing connection.
func (s *fileStore) exec(ctx context.Context, query string, args ...any) (res sql.Result, err error) {
	err = s.write(ctx, func(w writer) error {
		res, err = w.exec(query, args...)
		return err
	})
	return res, err
}

// queryRow runs a prepared query for one row; its errors surface in Scan.
func (s *fileStore) queryRow(ctx context.Context, query string, args ...any) scanner {
	ctx, err := detach(ctx)
	if err != nil {
		return errRow{err}
	}
	st, err := s.stmt(ctx, query)
	if err != nil {
		return errRow{err}
	}
	return st.QueryRowContext(ctx, args...)
}

// query runs a prepared query.
func (s *fileStore) query(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	ctx, err := detach(ctx)
	if err != nil {
		return nil, err
	}
	st, err := s.stmt(ctx, query)
	if err != nil {
		return nil, err
	}
	return st.QueryContext(ctx, args...)
}

// errRow is a row whose query could not be prepared.
type errRow struct{ err error }

func (r errRow) Scan(...any) error { return r.err }

// migrations are the schema changes, in order; the database's user_version
// is how many have been applied.
var migrations = []string{
	`CREATE TABLE executions (
		runtime     TEXT NOT NULL,
		id          TEXT NOT NULL,
		code        TEXT NOT NULL,
		status      TEXT NOT NULL,
		result      TEXT,
		error       TEXT NOT NULL DEFAULT '',
		logs        TEXT NOT NULL DEFAULT '[]',
		connectors  TEXT NOT NULL DEFAULT '[]',
		seed        BLOB,
		clock       TEXT NOT NULL DEFAULT '[]',
		passes      INTEGER NOT NULL DEFAULT 0,
		created_at  INTEGER NOT NULL,
		updated_at  INTEGER NOT NULL,
		PRIMARY KEY (runtime, id)
	);
	CREATE INDEX executions_by_status ON executions (runtime, status, updated_at);
	CREATE INDEX executions_by_age ON executions (runtime, created_at DESC, id DESC);
	CREATE TABLE tool_log (
		runtime           TEXT NOT NULL,
		execution_id      TEXT NOT NULL,
		seq               INTEGER NOT NULL,
		connector         TEXT NOT NULL,
		method            TEXT NOT NULL,
		args              TEXT NOT NULL,
		result            TEXT,
		error             TEXT NOT NULL DEFAULT '',
		requires_approval INTEGER NOT NULL,
		ephemeral         INTEGER NOT NULL,
		state             TEXT NOT NULL,
		updated_at        INTEGER NOT NULL,
		PRIMARY KEY (runtime, execution_id, seq),
		FOREIGN KEY (runtime, execution_id) REFERENCES executions (runtime, id) ON DELETE CASCADE
	);
	CREATE INDEX tool_log_by_state ON tool_log (runtime, state);`,
	// Version 2: one B-tree per tool log write instead of three. The log is
	// a WITHOUT ROWID table keyed by (runtime, execution_id, seq), so the
	// primary key is the table rather than a second index, and the state
	// index is gone (pending actions are found from paused executions).
	`CREATE TABLE tool_log_v2 (
		runtime           TEXT NOT NULL,
		execution_id      TEXT NOT NULL,
		seq               INTEGER NOT NULL,
		connector         TEXT NOT NULL,
		method            TEXT NOT NULL,
		args              TEXT NOT NULL,
		result            TEXT,
		error             TEXT NOT NULL DEFAULT '',
		requires_approval INTEGER NOT NULL,
		ephemeral         INTEGER NOT NULL,
		state             TEXT NOT NULL,
		updated_at        INTEGER NOT NULL,
		PRIMARY KEY (runtime, execution_id, seq),
		FOREIGN KEY (runtime, execution_id) REFERENCES executions (runtime, id) ON DELETE CASCADE
	) WITHOUT ROWID;
	INSERT INTO tool_log_v2 SELECT runtime, execution_id, seq, connector, method, args, result, error, requires_approval, ephemeral, state, updated_at FROM tool_log;
	DROP TABLE tool_log;
	ALTER TABLE tool_log_v2 RENAME TO tool_log;`,
	// Version 3: saved snippets (store.Snippet), per runtime.
	`CREATE TABLE snippets (
		runtime      TEXT NOT NULL,
		name         TEXT NOT NULL,
		description  TEXT NOT NULL DEFAULT '',
		code         TEXT NOT NULL,
		input_schema TEXT,
		connectors   TEXT NOT NULL DEFAULT '[]',
		saved_at     INTEGER NOT NULL,
		PRIMARY KEY (runtime, name)
	) WITHOUT ROWID;`,
	// Version 4: crash recovery. A running execution's lease (the pass
	// that holds it, until when), the highest seq its last approval
	// covered, and uncertain actions (an entry whose outcome a dead pass
	// left unknown).
	`ALTER TABLE executions ADD COLUMN lease_owner TEXT NOT NULL DEFAULT '';
	ALTER TABLE executions ADD COLUMN lease_until INTEGER NOT NULL DEFAULT 0;
	ALTER TABLE executions ADD COLUMN approved INTEGER NOT NULL DEFAULT 0;
	ALTER TABLE tool_log ADD COLUMN uncertain INTEGER NOT NULL DEFAULT 0;`,
	// Version 5: the fingerprint of the connectors' configuration a run
	// started with (store.Execution.Configuration), which an approval's
	// must match.
	`ALTER TABLE executions ADD COLUMN configuration TEXT NOT NULL DEFAULT '{}';`,
	// Version 6: how each call ended (store.Entry.End), so that every call
	// a program started is accounted for, abandoned ones included.
	`ALTER TABLE tool_log ADD COLUMN call_end TEXT NOT NULL DEFAULT '';`,
	// Version 7: the name of a failed call's error (store.Entry.ErrorName),
	// which a replay rejects with again.
	`ALTER TABLE tool_log ADD COLUMN error_name TEXT NOT NULL DEFAULT '';`,
	// Version 8: the properties of that error (store.Entry.ErrorData).
	`ALTER TABLE tool_log ADD COLUMN error_data TEXT;`,
	// Version 9: the upstream tool each call named (store.Entry.Upstream),
	// which a later pass's tool must still name; '' for the entries
	// recorded before (nothing to compare).
	`ALTER TABLE tool_log ADD COLUMN upstream TEXT NOT NULL DEFAULT '';`,
}

// schemaVersion is the schema version this package writes.
const schemaVersion = 9

func (s *fileStore) migrate(ctx context.Context) error {
	tx, err := s.db.BeginTx(ctx, nil) // immediate: two processes opening at once migrate one after the other
	if err != nil {
		return fmt.Errorf("starting the migration: %w", err)
	}
	defer func() { _ = tx.Rollback() }()
	var v int
	if err := tx.QueryRowContext(ctx, "PRAGMA user_version").Scan(&v); err != nil {
		return fmt.Errorf("reading the schema version: %w", err)
	}
	if v > len(migrations) {
		return fmt.Errorf("the journal's schema version is %d, newer than this program's %d: use a newer codemode", v, len(migrations))
	}
	for i := v; i < len(migrations); i++ {
		if _, err := tx.ExecContext(ctx, migrations[i]); err != nil {
			return fmt.Errorf("migrating the schema to version %d: %w", i+1, err)
		}
	}
	if v < len(migrations) {
		// PRAGMA takes no parameters; the value is this package's constant.
		if _, err := tx.ExecContext(ctx, fmt.Sprintf("PRAGMA user_version = %d", len(migrations))); err != nil {
			return fmt.Errorf("recording the schema version: %w", err)
		}
	}
	return tx.Commit()
}

func jsonText(v any) (string, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return "", err
	}
	return string(b), nil
}

func nullable(raw json.RawMessage) any {
	if raw == nil {
		return nil
	}
	return string(raw)
}

// CreateExecution implements store.Store.
func (s *fileStore) CreateExecution(ctx context.Context, runtime string, e *store.Execution, keep int) (int, error) {
	logs, err := jsonText(nonNil(e.Logs))
	if err != nil {
		return 0, err
	}
	conns, err := jsonText(nonNil(e.Connectors))
	if err != nil {
		return 0, err
	}
	clock, err := jsonText(nonNilF(e.Clock))
	if err != nil {
		return 0, err
	}
	config, err := columns.EncodeConfiguration(e)
	if err != nil {
		return 0, err
	}
	n := int64(0)
	err = s.writeTx(ctx, func(w writer) error {
		if _, err := w.exec(`INSERT INTO executions
		(runtime, id, code, status, result, error, logs, connectors, seed, clock, passes, created_at, updated_at, lease_owner, lease_until, approved, configuration)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			runtime, e.ID, e.Code, string(e.Status), nullable(e.Value), e.Error, logs, conns, e.Seed, clock, e.Passes, e.CreatedAt, e.UpdatedAt, e.LeaseOwner, e.LeaseUntil, int64(e.Approved), config); err != nil {
			return fmt.Errorf("creating execution %s: %w", e.ID, err)
		}
		if keep >= 0 {
			res, err := w.exec(pruneQuery, runtime, runtime, keep)
			if err != nil {
				return fmt.Errorf("pruning executions: %w", err)
			}
			if n, err = res.RowsAffected(); err != nil {
				return fmt.Errorf("pruning executions: %w", err)
			}
		}
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("sqlite: %w", err)
	}
	return int(n), nil
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func nonNilF(s []float64) []float64 {
	if s == nil {
		return []float64{}
	}
	return s
}

const executionColumns = `id, code, status, result, error, logs, connectors, seed, clock, passes, created_at, updated_at, lease_owner, lease_until, approved, configuration`

type scanner interface{ Scan(dest ...any) error }

func scanExecution(row scanner) (*store.Execution, error) {
	var (
		e                      store.Execution
		status                 string
		result                 sql.NullString
		logs, conns, clockText string
		config                 string
	)
	if err := row.Scan(&e.ID, &e.Code, &status, &result, &e.Error, &logs, &conns, &e.Seed, &clockText, &e.Passes, &e.CreatedAt, &e.UpdatedAt, &e.LeaseOwner, &e.LeaseUntil, &e.Approved, &config); err != nil {
		return nil, err
	}
	if err := columns.DecodeConfiguration(&e, config); err != nil {
		return nil, err
	}
	e.Status = store.Status(status)
	if result.Valid {
		e.Value = json.RawMessage(result.String)
	}
	if err := columns.Decode(&e, logs, conns, clockText); err != nil {
		return nil, err
	}
	return &e, nil
}

const entryColumns = `seq, connector, method, args, result, error, requires_approval, ephemeral, state, updated_at, uncertain, call_end, error_name, error_data, upstream`

func scanEntry(row scanner) (*store.Entry, error) {
	var (
		e       store.Entry
		args    string
		result  sql.NullString
		errData sql.NullString
		state   string
	)
	if err := row.Scan(&e.Seq, &e.Connector, &e.Method, &args, &result, &e.Error, &e.RequiresApproval, &e.Ephemeral, &state, &e.UpdatedAt, &e.Uncertain, &e.End, &e.ErrorName, &errData, &e.Upstream); err != nil {
		return nil, err
	}
	e.Args = json.RawMessage(args)
	if result.Valid {
		e.Result = json.RawMessage(result.String)
	}
	if errData.Valid {
		e.ErrorData = json.RawMessage(errData.String)
	}
	e.State = store.EntryState(state)
	return &e, nil
}

// Execution implements store.Store.
func (s *fileStore) Execution(ctx context.Context, runtime, id string) (*store.Execution, error) {
	e, err := scanExecution(s.queryRow(ctx, `SELECT `+executionColumns+` FROM executions WHERE runtime = ? AND id = ?`, runtime, id))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("%w: %s", store.ErrNotFound, id)
	}
	if err != nil {
		return nil, fmt.Errorf("sqlite: reading execution %s: %w", id, err)
	}
	if e.Log, err = s.log(ctx, runtime, id); err != nil {
		return nil, err
	}
	return e, nil
}

func (s *fileStore) log(ctx context.Context, runtime, id string) ([]store.Entry, error) {
	rows, err := s.query(ctx, `SELECT `+entryColumns+` FROM tool_log WHERE runtime = ? AND execution_id = ? ORDER BY seq`, runtime, id)
	if err != nil {
		return nil, fmt.Errorf("sqlite: reading the log of %s: %w", id, err)
	}
	defer rows.Close()
	log := []store.Entry{}
	for rows.Next() {
		e, err := scanEntry(rows)
		if err != nil {
			return nil, fmt.Errorf("sqlite: reading the log of %s: %w", id, err)
		}
		log = append(log, *e)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("sqlite: reading the log of %s: %w", id, err)
	}
	return log, nil
}

// Executions implements store.Store.
func (s *fileStore) Executions(ctx context.Context, runtime string, limit int) ([]*store.Execution, error) {
	if limit <= 0 {
		limit = -1 // SQLite: no limit
	}
	rows, err := s.query(ctx, `SELECT `+executionColumns+` FROM executions WHERE runtime = ?
		ORDER BY created_at DESC, id DESC LIMIT ?`, runtime, limit)
	if err != nil {
		return nil, fmt.Errorf("sqlite: listing executions: %w", err)
	}
	var out []*store.Execution
	for rows.Next() {
		e, err := scanExecution(rows)
		if err != nil {
			rows.Close()
			return nil, fmt.Errorf("sqlite: listing executions: %w", err)
		}
		out = append(out, e)
	}
	err = rows.Err()
	rows.Close()
	if err != nil {
		return nil, fmt.Errorf("sqlite: listing executions: %w", err)
	}
	for _, e := range out {
		if e.Log, err = s.log(ctx, runtime, e.ID); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func placeholders(n int) string {
	return strings.TrimSuffix(strings.Repeat("?, ", n), ", ")
}

// TransitionExecution implements store.Store.
func (s *fileStore) TransitionExecution(ctx context.Context, runtime, id string, from []store.Status, to store.Status, u store.ExecutionUpdate) (bool, error) {
	if len(from) == 0 {
		return false, errors.New("sqlite: a transition needs at least one from state")
	}
	set := []string{"status = ?"}
	args := []any{string(to)}
	if u.At != 0 {
		set, args = append(set, "updated_at = ?"), append(args, u.At)
	}
	if u.Value != nil {
		set, args = append(set, "result = ?"), append(args, string(u.Value))
	}
	if u.Error != nil {
		set, args = append(set, "error = ?"), append(args, *u.Error)
	}
	if u.Logs != nil {
		t, err := jsonText(u.Logs)
		if err != nil {
			return false, err
		}
		set, args = append(set, "logs = ?"), append(args, t)
	}
	if u.Seed != nil {
		set, args = append(set, "seed = ?"), append(args, u.Seed)
	}
	if u.Clock != nil {
		t, err := jsonText(u.Clock)
		if err != nil {
			return false, err
		}
		set, args = append(set, "clock = ?"), append(args, t)
	}
	if u.Passes != nil {
		set, args = append(set, "passes = ?"), append(args, *u.Passes)
	}
	if u.Lease != nil {
		set, args = append(set, "lease_owner = ?", "lease_until = ?"), append(args, u.Lease.Owner, u.Lease.Until)
	}
	if u.Approved != nil {
		set, args = append(set, "approved = ?"), append(args, int64(*u.Approved))
	}
	args = append(args, runtime, id)
	for _, f := range from {
		args = append(args, string(f))
	}
	res, err := s.exec(ctx, `UPDATE executions SET `+strings.Join(set, ", ")+
		` WHERE runtime = ? AND id = ? AND status IN (`+placeholders(len(from))+`)`, args...)
	if err != nil {
		return false, fmt.Errorf("sqlite: moving execution %s to %s: %w", id, to, err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return false, fmt.Errorf("sqlite: moving execution %s to %s: %w", id, to, err)
	}
	return n == 1, nil
}

// ExpireExecutions implements store.Store.
func (s *fileStore) ExpireExecutions(ctx context.Context, runtime string, from store.Status, before int64, to store.Status, message string, at int64) ([]string, error) {
	var ids []string
	err := s.write(ctx, func(w writer) error {
		rows, err := w.query(`UPDATE executions SET status = ?, error = ?, updated_at = ?, lease_owner = '', lease_until = 0
		WHERE runtime = ? AND status = ? AND updated_at < ? AND lease_until < ? RETURNING id`,
			string(to), message, at, runtime, string(from), before, at)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var id string
			if err := rows.Scan(&id); err != nil {
				return err
			}
			ids = append(ids, id)
		}
		return rows.Err()
	})
	if err != nil {
		return nil, fmt.Errorf("sqlite: expiring %s executions: %w", from, err)
	}
	return ids, nil
}

// LeaseExecution implements store.Store.
func (s *fileStore) LeaseExecution(ctx context.Context, runtime, id string, l store.Lease, at int64) (bool, error) {
	res, err := s.exec(ctx, `UPDATE executions SET lease_owner = ?, lease_until = ?, updated_at = ?
		WHERE runtime = ? AND id = ? AND status = 'running' AND (lease_owner = ? OR lease_until < ?)`,
		l.Owner, l.Until, at, runtime, id, l.Owner, at)
	if err != nil {
		return false, fmt.Errorf("sqlite: leasing execution %s: %w", id, err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return false, fmt.Errorf("sqlite: leasing execution %s: %w", id, err)
	}
	return n == 1, nil
}

// Orphans implements store.Store.
func (s *fileStore) Orphans(ctx context.Context, runtime string, at int64) ([]string, error) {
	return s.column(ctx, "listing orphaned executions", `SELECT id FROM executions WHERE runtime = ? AND status = 'running' AND lease_until < ?
		ORDER BY created_at, id`, runtime, at)
}

// Runtimes implements store.RuntimeLister.
func (s *fileStore) Runtimes(ctx context.Context) ([]string, error) {
	names, err := s.column(ctx, "listing runtime names", `SELECT DISTINCT runtime FROM executions`)
	slices.Sort(names) // byte order, whatever the collation
	return names, err
}

// column runs q, a query of one text column, and returns its values in
// order; errors say what (the doing of it) failed.
func (s *fileStore) column(ctx context.Context, what, q string, args ...any) ([]string, error) {
	rows, err := s.query(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("sqlite: %s: %w", what, err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var v string
		if err := rows.Scan(&v); err != nil {
			return nil, fmt.Errorf("sqlite: %s: %w", what, err)
		}
		out = append(out, v)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("sqlite: %s: %w", what, err)
	}
	return out, nil
}

// DeleteExecution implements store.Store.
func (s *fileStore) DeleteExecution(ctx context.Context, runtime, id string) (*store.Execution, error) {
	var e *store.Execution
	err := s.write(ctx, func(w writer) error {
		st, err := w.stmt(`DELETE FROM executions WHERE runtime = ? AND id = ? RETURNING ` + executionColumns)
		if err != nil {
			return err
		}
		e, err = scanExecution(st.QueryRowContext(w.ctx, runtime, id))
		return err
	})
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("sqlite: deleting execution %s: %w", id, err)
	}
	return e, nil
}

// terminal lists the terminal states for SQL.
const terminal = `('completed', 'error', 'rejected', 'rolled_back')`

// pruneQuery removes all but the newest terminal executions (runtime,
// runtime, keep).
const pruneQuery = `DELETE FROM executions WHERE runtime = ? AND status IN ` + terminal + `
	AND id NOT IN (SELECT id FROM executions WHERE runtime = ? AND status IN ` + terminal + `
		ORDER BY created_at DESC, id DESC LIMIT ?)`

// PruneExecutions implements store.Store.
func (s *fileStore) PruneExecutions(ctx context.Context, runtime string, keep int) (int, error) {
	if keep < 0 {
		keep = 0
	}
	res, err := s.exec(ctx, pruneQuery, runtime, runtime, keep)
	return s.pruned(ctx, res, err)
}

// pruned is how many executions a prune's delete removed; it returns the
// freed pages to the file system (a no-op for a file whose auto_vacuum is
// off: see Open).
func (s *fileStore) pruned(ctx context.Context, res sql.Result, err error) (int, error) {
	if err != nil {
		return 0, fmt.Errorf("sqlite: pruning executions: %w", err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return 0, fmt.Errorf("sqlite: pruning executions: %w", err)
	}
	if n > 0 {
		if _, err := s.exec(ctx, "PRAGMA incremental_vacuum"); err != nil {
			return int(n), fmt.Errorf("sqlite: returning the pruned executions' space: %w", err)
		}
	}
	return int(n), nil
}

// PruneOlder implements store.Store.
func (s *fileStore) PruneOlder(ctx context.Context, runtime string, before int64) (int, error) {
	res, err := s.exec(ctx, `DELETE FROM executions WHERE runtime = ? AND status IN `+terminal+` AND created_at < ?`, runtime, before)
	return s.pruned(ctx, res, err)
}

// Entry implements store.Store.
func (s *fileStore) Entry(ctx context.Context, runtime, id string, seq uint64) (*store.Entry, bool, error) {
	e, err := scanEntry(s.queryRow(ctx, `SELECT `+entryColumns+` FROM tool_log
		WHERE runtime = ? AND execution_id = ? AND seq = ?`, runtime, id, seq))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("sqlite: reading entry %d of %s: %w", seq, id, err)
	}
	return e, true, nil
}

// insertEntry is the statement of InsertEntry.
func insertEntry(runtime, id string, e *store.Entry) (string, []any) {
	return `INSERT INTO tool_log
		(runtime, execution_id, seq, connector, method, args, result, error, requires_approval, ephemeral, state, updated_at, uncertain, call_end, error_name, error_data, upstream)
		SELECT ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?
		WHERE EXISTS (SELECT 1 FROM executions WHERE runtime = ? AND id = ? AND status = 'running')
		ON CONFLICT DO NOTHING`,
		[]any{runtime, id, e.Seq, e.Connector, e.Method, string(e.Args), nullable(e.Result), e.Error, e.RequiresApproval, e.Ephemeral, string(e.State), e.UpdatedAt, e.Uncertain, e.End, e.ErrorName, nullable(e.ErrorData), e.Upstream,
			runtime, id}
}

// InsertEntry implements store.Store.
func (s *fileStore) InsertEntry(ctx context.Context, runtime, id string, e *store.Entry) (bool, error) {
	q, args := insertEntry(runtime, id, e)
	res, err := s.exec(ctx, q, args...)
	if err != nil {
		return false, fmt.Errorf("sqlite: recording entry %d of %s: %w", e.Seq, id, err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return false, fmt.Errorf("sqlite: recording entry %d of %s: %w", e.Seq, id, err)
	}
	return n == 1, nil
}

// transitionEntry is the statement of TransitionEntry.
func transitionEntry(runtime, id string, seq uint64, from []store.EntryState, to store.EntryState, u store.EntryUpdate) (string, []any, error) {
	if len(from) == 0 {
		return "", nil, errors.New("sqlite: a transition needs at least one from state")
	}
	set := []string{"state = ?"}
	args := []any{string(to)}
	if u.At != 0 {
		set, args = append(set, "updated_at = ?"), append(args, u.At)
	}
	if u.Result != nil {
		set, args = append(set, "result = ?"), append(args, string(u.Result))
	}
	if u.Error != nil {
		set, args = append(set, "error = ?"), append(args, *u.Error)
	}
	if u.Uncertain != nil {
		set, args = append(set, "uncertain = ?"), append(args, *u.Uncertain)
	}
	if u.End != "" {
		set, args = append(set, "call_end = ?"), append(args, u.End)
	}
	if u.ErrorName != "" {
		set, args = append(set, "error_name = ?"), append(args, u.ErrorName)
	}
	if u.ErrorData != nil {
		set, args = append(set, "error_data = ?"), append(args, string(u.ErrorData))
	}
	args = append(args, runtime, id, seq)
	for _, f := range from {
		args = append(args, string(f))
	}
	q := `UPDATE tool_log SET ` + strings.Join(set, ", ") +
		` WHERE runtime = ? AND execution_id = ? AND seq = ? AND state IN (` + placeholders(len(from)) + `)`
	if to == store.EntryExecuting { // a claim: only while the run is running (one writer: atomic)
		q += ` AND EXISTS (SELECT 1 FROM executions WHERE runtime = ? AND id = ? AND status = 'running')`
		args = append(args, runtime, id)
	}
	return q, args, nil
}

// TransitionEntry implements store.Store.
func (s *fileStore) TransitionEntry(ctx context.Context, runtime, id string, seq uint64, from []store.EntryState, to store.EntryState, u store.EntryUpdate) (bool, error) {
	q, args, err := transitionEntry(runtime, id, seq, from, to, u)
	if err != nil {
		return false, err
	}
	res, err := s.exec(ctx, q, args...)
	if err != nil {
		return false, fmt.Errorf("sqlite: moving entry %d of %s to %s: %w", seq, id, to, err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return false, fmt.Errorf("sqlite: moving entry %d of %s to %s: %w", seq, id, to, err)
	}
	return n == 1, nil
}

// WriteEntries implements store.EntryBatcher: the moves and the insert
// in one immediate transaction. One commit costs about as much as one
// statement alone (of some 35 us of CPU per autocommit statement, half are
// the WAL's lock and write system calls), so a call's result and the next
// call's mark cost one commit.
func (s *fileStore) WriteEntries(ctx context.Context, runtime, id string, moves []store.EntryMove, insert *store.Entry) (bool, error) {
	for _, m := range moves {
		if m.To == store.EntryExecuting {
			return false, fmt.Errorf("sqlite: entry %d of %s: a batch cannot claim an entry", m.Seq, id)
		}
	}
	switch {
	case len(moves) == 0 && insert == nil:
		return false, nil
	case len(moves) == 0:
		return s.InsertEntry(ctx, runtime, id, insert)
	case len(moves) == 1 && insert == nil:
		m := moves[0]
		_, err := s.TransitionEntry(ctx, runtime, id, m.Seq, m.From, m.To, m.Update)
		return false, err
	}
	inserted := false
	err := s.writeTx(ctx, func(w writer) error {
		for _, m := range moves {
			q, args, err := transitionEntry(runtime, id, m.Seq, m.From, m.To, m.Update)
			if err != nil {
				return err
			}
			if _, err := w.exec(q, args...); err != nil {
				return fmt.Errorf("moving entry %d of %s to %s: %w", m.Seq, id, m.To, err)
			}
		}
		if insert == nil {
			return nil
		}
		q, args := insertEntry(runtime, id, insert)
		res, err := w.exec(q, args...)
		if err != nil {
			return fmt.Errorf("recording entry %d of %s: %w", insert.Seq, id, err)
		}
		n, err := res.RowsAffected()
		inserted = n == 1
		return err
	})
	if err != nil {
		return false, fmt.Errorf("sqlite: recording entries of %s: %w", id, err)
	}
	return inserted, nil
}

// Pending implements store.Store.
func (s *fileStore) Pending(ctx context.Context, runtime, id string) ([]store.PendingAction, error) {
	q := `SELECT t.execution_id, t.seq, t.connector, t.method, t.args, t.uncertain FROM executions e
		JOIN tool_log t ON t.runtime = e.runtime AND t.execution_id = e.id
		WHERE e.runtime = ? AND e.status = 'paused' AND t.state = 'pending'`
	args := []any{runtime}
	if id != "" {
		q += ` AND e.id = ?`
		args = append(args, id)
	}
	q += ` ORDER BY e.created_at, e.id, t.seq`
	rows, err := s.query(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("sqlite: listing pending actions: %w", err)
	}
	defer rows.Close()
	out := []store.PendingAction{}
	for rows.Next() {
		var p store.PendingAction
		var a string
		if err := rows.Scan(&p.ExecutionID, &p.Seq, &p.Connector, &p.Method, &a, &p.Uncertain); err != nil {
			return nil, fmt.Errorf("sqlite: listing pending actions: %w", err)
		}
		p.Args = json.RawMessage(a)
		out = append(out, p)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("sqlite: listing pending actions: %w", err)
	}
	return out, nil
}
