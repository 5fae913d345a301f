package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgconn/ctxwatch"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/codemode-go/codemode/durable/store"
	"github.com/codemode-go/codemode/durable/store/internal/columns"
)

// ErrUnavailable is wrapped by the errors of a store whose database cannot
// be reached (refused or broken connection, server shutting down or
// starting up). The statement did not happen or its outcome is unknown;
// the pool reconnects on the next call once the server is back.
var ErrUnavailable = errors.New("the database is unavailable")

// Options are the store's settings. Zero values keep the DSN's settings
// (pgxpool's pool_max_conns, pool_min_conns, pool_max_conn_lifetime,
// pool_max_conn_idle_time, pool_health_check_period, connect_timeout) or,
// when the DSN has none, the defaults named on each field.
type Options struct {
	// Schema is the PostgreSQL schema that holds the journal's tables; it
	// is created when absent. "" uses the connection's search_path (by
	// default public). Several journals can share a database in separate
	// schemas; runtime names already separate histories within one.
	Schema string
	// MaxConns is the pool's size; 0: the DSN's pool_max_conns, else
	// pgxpool's default (the larger of 4 and the number of CPUs).
	MaxConns int32
	// MinConns is how many connections the pool keeps open; 0: the DSN's
	// pool_min_conns, else none.
	MinConns int32
	// MaxConnLifetime closes connections older than this; 0: the DSN's
	// pool_max_conn_lifetime, else one hour.
	MaxConnLifetime time.Duration
	// MaxConnIdleTime closes connections idle longer than this; 0: the
	// DSN's pool_max_conn_idle_time, else 30 minutes.
	MaxConnIdleTime time.Duration
	// ConnectTimeout bounds each connection attempt; 0: the DSN's
	// connect_timeout, else 5 seconds.
	ConnectTimeout time.Duration
	// QueryTimeout is the deadline of each statement (and of each
	// read-only transaction) when the caller's context has a later one or
	// none; 0 means 15 seconds.
	QueryTimeout time.Duration
}

// pgStore is a store.Store on a PostgreSQL database, through a connection
// pool. It is safe for concurrent use, and any number of processes may
// open the same database (and schema) at once.
type pgStore struct {
	pool    *pgxpool.Pool
	timeout time.Duration
	where   string // host:port/database, for error messages (no credentials)
}

var (
	_ store.Store         = (*pgStore)(nil)
	_ store.RuntimeLister = (*pgStore)(nil)
)

// Open connects to the database at dsn (postgres://user:password@host:port/database?options,
// or a key=value connection string; see pgx's pgconn.ParseConfig), checks
// that it answers within the connect timeout, and migrates the journal's
// schema to the current version. It returns an error wrapping
// ErrUnavailable when the database cannot be reached, and an error naming
// the versions when the schema was written by a newer program.
//
// The store is safe for concurrent use, and any number of processes may open
// the same database (and schema) at once; it implements
// store.RuntimeLister. To inspect the journal (backups, statistics),
// connect with pgx or psql; writing its tables directly bypasses the
// conditional transitions that keep it consistent.
func Open(ctx context.Context, dsn string, opts Options) (store.Store, error) {
	cfg, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		// pgconn's parse errors hide the connection string's password.
		return nil, fmt.Errorf("postgres: %w", err)
	}
	if opts.MaxConns > 0 {
		cfg.MaxConns = opts.MaxConns
	}
	if opts.MinConns > 0 {
		cfg.MinConns = opts.MinConns
	}
	if cfg.MinConns > cfg.MaxConns {
		cfg.MinConns = cfg.MaxConns
	}
	if opts.MaxConnLifetime > 0 {
		cfg.MaxConnLifetime = opts.MaxConnLifetime
	}
	if opts.MaxConnIdleTime > 0 {
		cfg.MaxConnIdleTime = opts.MaxConnIdleTime
	}
	switch {
	case opts.ConnectTimeout > 0:
		cfg.ConnConfig.ConnectTimeout = opts.ConnectTimeout
	case cfg.ConnConfig.ConnectTimeout == 0:
		cfg.ConnConfig.ConnectTimeout = 5 * time.Second
	}
	timeout := opts.QueryTimeout
	if timeout <= 0 {
		timeout = 15 * time.Second
	}
	// A statement past its deadline is cancelled on the server too (a
	// cancel request, then the socket's deadline a second later), not only
	// abandoned by the client: a transition stuck behind a lock would
	// otherwise still commit once the lock is released. statement_timeout
	// is the server's own bound, for a client that vanished.
	cfg.ConnConfig.BuildContextWatcherHandler = func(c *pgconn.PgConn) ctxwatch.Handler {
		return &pgconn.CancelRequestContextWatcherHandler{Conn: c, DeadlineDelay: time.Second}
	}
	if _, ok := cfg.ConnConfig.RuntimeParams["statement_timeout"]; !ok {
		cfg.ConnConfig.RuntimeParams["statement_timeout"] = fmt.Sprint(timeout.Milliseconds())
	}
	if opts.Schema != "" {
		cfg.ConnConfig.RuntimeParams["search_path"] = pgx.Identifier{opts.Schema}.Sanitize()
	}
	s := &pgStore{
		timeout: timeout,
		where:   fmt.Sprintf("%s:%d/%s", cfg.ConnConfig.Host, cfg.ConnConfig.Port, cfg.ConnConfig.Database),
	}
	if s.pool, err = pgxpool.NewWithConfig(ctx, cfg); err != nil {
		return nil, fmt.Errorf("postgres: %w", err)
	}
	if err := s.migrate(ctx, opts.Schema); err != nil {
		s.pool.Close()
		return nil, err
	}
	return s, nil
}

// Close closes the pool's connections, waiting for those in use to be
// returned.
func (s *pgStore) Close() error {
	s.pool.Close()
	return nil
}

// schemaVersion is the schema version this package writes.
const schemaVersion = 8

// migrations are the schema changes, in order; codemode_schema_version holds
// how many have been applied. Code and error messages are bytea: they are
// arbitrary strings (a program may contain NUL, which text cannot hold).
// JSON values are text, never jsonb: replay compares arguments byte for
// byte, and jsonb would reorder keys and reformat numbers.
var migrations = []string{
	`CREATE TABLE codemode_executions (
		runtime     text NOT NULL,
		id          text NOT NULL,
		code        bytea NOT NULL,
		status      text NOT NULL CHECK (status IN ('running', 'paused', 'completed', 'error', 'rejected', 'rolled_back')),
		result      text,
		error       bytea NOT NULL DEFAULT '',
		logs        text NOT NULL DEFAULT '[]',
		connectors  text NOT NULL DEFAULT '[]',
		seed        bytea,
		clock       text NOT NULL DEFAULT '[]',
		passes      integer NOT NULL DEFAULT 0,
		created_at  bigint NOT NULL,
		updated_at  bigint NOT NULL,
		PRIMARY KEY (runtime, id)
	);
	CREATE INDEX codemode_executions_by_status ON codemode_executions (runtime, status, updated_at);
	CREATE INDEX codemode_executions_by_age ON codemode_executions (runtime, created_at DESC, id DESC);
	CREATE TABLE codemode_tool_log (
		runtime           text NOT NULL,
		execution_id      text NOT NULL,
		seq               bigint NOT NULL,
		connector         text NOT NULL,
		method            text NOT NULL,
		args              text NOT NULL,
		result            text,
		error             bytea NOT NULL DEFAULT '',
		requires_approval boolean NOT NULL,
		ephemeral         boolean NOT NULL,
		state             text NOT NULL CHECK (state IN ('executing', 'applied', 'pending', 'reverted', 'error')),
		updated_at        bigint NOT NULL,
		PRIMARY KEY (runtime, execution_id, seq),
		FOREIGN KEY (runtime, execution_id) REFERENCES codemode_executions (runtime, id) ON DELETE CASCADE
	);
	CREATE INDEX codemode_tool_log_by_state ON codemode_tool_log (runtime, state);`,
	// Version 2: saved snippets (store.Snippet), per runtime.
	`CREATE TABLE codemode_snippets (
		runtime      text NOT NULL,
		name         text NOT NULL,
		description  bytea NOT NULL DEFAULT '',
		code         bytea NOT NULL,
		input_schema text,
		connectors   text NOT NULL DEFAULT '[]',
		saved_at     bigint NOT NULL,
		PRIMARY KEY (runtime, name)
	);`,
	// Version 3: crash recovery. A running execution's lease (the pass
	// that holds it, until when), the highest seq its last approval
	// covered, and uncertain actions (an entry whose outcome a dead pass
	// left unknown).
	`ALTER TABLE codemode_executions ADD COLUMN lease_owner text NOT NULL DEFAULT '',
		ADD COLUMN lease_until bigint NOT NULL DEFAULT 0,
		ADD COLUMN approved bigint NOT NULL DEFAULT 0;
	ALTER TABLE codemode_tool_log ADD COLUMN uncertain boolean NOT NULL DEFAULT false;`,
	// Version 4: the fingerprint of the connectors' configuration a run
	// started with (store.Execution.Configuration), which an approval's
	// must match.
	`ALTER TABLE codemode_executions ADD COLUMN configuration text NOT NULL DEFAULT '{}';`,
	// Version 5: how each call ended (store.Entry.End), so that every call
	// a program started is accounted for, abandoned ones included.
	`ALTER TABLE codemode_tool_log ADD COLUMN call_end text NOT NULL DEFAULT '';`,
	// Version 6: the name of a failed call's error (store.Entry.ErrorName),
	// which a replay rejects with again; bytes, as the error is (a Go
	// error's name may hold any byte).
	`ALTER TABLE codemode_tool_log ADD COLUMN error_name bytea NOT NULL DEFAULT '';`,
	// Version 7: the properties of that error (store.Entry.ErrorData), JSON
	// text.
	`ALTER TABLE codemode_tool_log ADD COLUMN error_data text;`,
	// Version 8: the upstream tool each call named (store.Entry.Upstream),
	// which a later pass's tool must still name; '' for the entries
	// recorded before (nothing to compare). Bytes: an MCP server's tool
	// name may hold NUL, which text cannot.
	`ALTER TABLE codemode_tool_log ADD COLUMN upstream bytea NOT NULL DEFAULT '';`,
}

// migrationLock is the first key of the advisory lock taken around
// migrations (the second is the schema's hash): "cmdj" in ASCII.
const migrationLock = 0x636d646a

func (s *pgStore) migrate(ctx context.Context, schema string) error {
	// A replica may wait here for another's migration: at least a minute.
	ctx, cancel := context.WithTimeout(ctx, max(s.timeout, time.Minute))
	defer cancel()
	tx, err := s.pool.BeginTx(ctx, pgx.TxOptions{})
	if err != nil {
		return s.wrap("starting the schema migration", err)
	}
	defer func() { _ = tx.Rollback(context.WithoutCancel(ctx)) }()
	if _, err := tx.Exec(ctx, fmt.Sprintf("SET LOCAL statement_timeout = %d", max(s.timeout, time.Minute).Milliseconds())); err != nil {
		return s.wrap("starting the schema migration", err)
	}
	// Replicas starting at once queue here; the lock ends with the
	// transaction. Keyed by schema so separate journals do not wait for
	// each other.
	if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1, hashtext(coalesce(nullif($2, ''), current_schema(), '')))`, migrationLock, schema); err != nil {
		return s.wrap("locking the schema migration", err)
	}
	if schema != "" {
		if _, err := tx.Exec(ctx, `CREATE SCHEMA IF NOT EXISTS `+pgx.Identifier{schema}.Sanitize()); err != nil {
			return s.wrap("creating schema "+schema, err)
		}
	}
	if _, err := tx.Exec(ctx, `CREATE TABLE IF NOT EXISTS codemode_schema_version (version integer NOT NULL)`); err != nil {
		return s.wrap("creating the schema version table", err)
	}
	var v int
	err = tx.QueryRow(ctx, `SELECT version FROM codemode_schema_version`).Scan(&v)
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		if _, err := tx.Exec(ctx, `INSERT INTO codemode_schema_version (version) VALUES (0)`); err != nil {
			return s.wrap("recording the schema version", err)
		}
	case err != nil:
		return s.wrap("reading the schema version", err)
	}
	if v > len(migrations) {
		return fmt.Errorf("postgres: the journal's schema version is %d, newer than this program's %d: use a newer codemode", v, len(migrations))
	}
	for i := v; i < len(migrations); i++ {
		if _, err := tx.Exec(ctx, migrations[i]); err != nil {
			return s.wrap(fmt.Sprintf("migrating the schema to version %d", i+1), err)
		}
	}
	if v < len(migrations) {
		if _, err := tx.Exec(ctx, `UPDATE codemode_schema_version SET version = $1`, len(migrations)); err != nil {
			return s.wrap("recording the schema version", err)
		}
	}
	if err := tx.Commit(ctx); err != nil {
		return s.wrap("committing the schema migration", err)
	}
	return nil
}

// deadline bounds ctx by the query timeout.
func (s *pgStore) deadline(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(ctx, s.timeout)
}

// wrap adds the operation and, for a database that cannot be reached,
// ErrUnavailable and its address.
func (s *pgStore) wrap(op string, err error) error {
	switch {
	case errors.Is(err, context.Canceled):
	case errors.Is(err, context.DeadlineExceeded), isCode(err, "57014"): // query_canceled: statement_timeout or a cancel request
		return fmt.Errorf("postgres: %s: no answer from %s in time (query timeout %s or the caller's deadline): %w", op, s.where, s.timeout, err)
	case unavailable(err):
		return fmt.Errorf("postgres: %s: %w at %s: %w", op, ErrUnavailable, s.where, err)
	}
	return fmt.Errorf("postgres: %s: %w", op, err)
}

func isCode(err error, code string) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && pe.Code == code
}

// unavailable reports whether err says the server could not be reached or
// dropped the connection: connection errors (pgconn.ConnectError), a
// connection pgx had closed already (pgconn.ErrConnClosed, "conn closed":
// a statement on a connection whose socket died under an earlier one),
// errors pgx marks safe to retry, network errors, SQLSTATE class 08
// (connection exception) and 57P01-57P03 (shutdown, crash shutdown, cannot
// connect now).
func unavailable(err error) bool {
	var ce *pgconn.ConnectError
	if errors.As(err, &ce) || pgconn.SafeToRetry(err) || errors.Is(err, pgconn.ErrConnClosed) {
		return true
	}
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return strings.HasPrefix(pe.Code, "08") || pe.Code == "57P01" || pe.Code == "57P02" || pe.Code == "57P03"
	}
	var ne net.Error
	return errors.As(err, &ne) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, net.ErrClosed)
}

// retry runs fn once more when its first attempt failed before anything
// reached the server (pgconn.SafeToRetry: a pooled connection the server
// had closed, as after a restart), so the first call after an outage does
// not fail for a connection the pool had not yet noticed was dead. Writes
// use it: a write whose outcome is unknown is not sent twice.
func retry(ctx context.Context, fn func(context.Context) error) error {
	err := fn(ctx)
	if err != nil && pgconn.SafeToRetry(err) && ctx.Err() == nil {
		err = fn(ctx)
	}
	return err
}

// retryRead is retry for statements that change nothing: it runs fn once
// more after any connection-level failure (unavailable), since reading
// twice is harmless.
func retryRead(ctx context.Context, fn func(context.Context) error) error {
	err := fn(ctx)
	if err != nil && unavailable(err) && ctx.Err() == nil {
		err = fn(ctx)
	}
	return err
}

func (s *pgStore) exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error) {
	ctx, cancel := s.deadline(ctx)
	defer cancel()
	var tag pgconn.CommandTag
	err := retry(ctx, func(ctx context.Context) (err error) {
		tag, err = s.pool.Exec(ctx, sql, args...)
		return err
	})
	return tag, err
}

func (s *pgStore) queryRow(ctx context.Context, scan func(pgx.Row) error, sql string, args ...any) error {
	ctx, cancel := s.deadline(ctx)
	defer cancel()
	return retry(ctx, func(ctx context.Context) error { return scan(s.pool.QueryRow(ctx, sql, args...)) })
}

// readRow is queryRow for a statement that changes nothing (retryRead).
func (s *pgStore) readRow(ctx context.Context, scan func(pgx.Row) error, sql string, args ...any) error {
	ctx, cancel := s.deadline(ctx)
	defer cancel()
	return retryRead(ctx, func(ctx context.Context) error { return scan(s.pool.QueryRow(ctx, sql, args...)) })
}

type querier interface {
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
}

// query runs sql and calls each for every row.
func query(ctx context.Context, q querier, each func(pgx.Rows) error, sql string, args ...any) error {
	rows, err := q.Query(ctx, sql, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		if err := each(rows); err != nil {
			return err
		}
	}
	return rows.Err()
}

// key reports whether s can be a key in the database (text holds valid
// UTF-8 without NUL): other strings name nothing stored.
func key(s string) bool { return utf8.ValidString(s) && !strings.ContainsRune(s, 0) }

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

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

func seqParam(seq uint64) (int64, error) {
	if seq > math.MaxInt64 {
		return 0, fmt.Errorf("postgres: seq %d is out of range", seq)
	}
	return int64(seq), nil
}

// CreateExecution implements store.Store: it inserts e and, when keep >=
// 0, prunes all but the keep newest terminal executions of runtime in the
// same statement (one transaction, one round trip), returning how many it
// removed.
func (s *pgStore) CreateExecution(ctx context.Context, runtime string, e *store.Execution, keep int) (int, error) {
	if !key(runtime) || !key(e.ID) {
		return 0, fmt.Errorf("postgres: creating execution %q: the runtime name and the ID must be valid UTF-8 without NUL", e.ID)
	}
	logs, err := jsonText(nonNil(e.Logs))
	if err != nil {
		return 0, fmt.Errorf("postgres: creating execution %s: %w", e.ID, err)
	}
	conns, err := jsonText(nonNil(e.Connectors))
	if err != nil {
		return 0, fmt.Errorf("postgres: creating execution %s: %w", e.ID, err)
	}
	clock, err := jsonText(nonNil(e.Clock))
	if err != nil {
		return 0, fmt.Errorf("postgres: creating execution %s: %w", e.ID, err)
	}
	config, err := columns.EncodeConfiguration(e)
	if err != nil {
		return 0, fmt.Errorf("postgres: creating execution %s: %w", e.ID, err)
	}
	if e.Approved > math.MaxInt64 {
		return 0, fmt.Errorf("postgres: creating execution %s: approved seq %d is out of range", e.ID, e.Approved)
	}
	// $14 is the prune's keep (pruneTail), unused without a prune. The
	// prune does not see the row its statement inserts (one snapshot), so
	// a terminal e takes one of the places it keeps.
	pruneKeep := max(keep, 0)
	if pruneKeep > 0 && e.Status.Terminal() {
		pruneKeep--
	}
	args := []any{runtime, e.ID, []byte(e.Code), string(e.Status), nullable(e.Value), []byte(e.Error), logs, conns, e.Seed, clock, e.Passes, e.CreatedAt, e.UpdatedAt,
		pruneKeep, e.LeaseOwner, e.LeaseUntil, int64(e.Approved), config}
	q := `WITH p AS (SELECT $14::integer AS keep) ` + insertExecution
	if keep >= 0 {
		q = `WITH created AS (` + insertExecution + ` RETURNING id), ` + pruneTail
	}
	tag, err := s.exec(ctx, q, args...)
	if isCode(err, "23505") { // unique_violation
		return 0, fmt.Errorf("postgres: creating execution %s: it already exists in runtime %s", e.ID, runtime)
	}
	if err != nil {
		return 0, s.wrap("creating execution "+e.ID, err)
	}
	if keep < 0 {
		return 0, nil
	}
	return int(tag.RowsAffected()), nil
}

const insertExecution = `INSERT INTO codemode_executions
	(runtime, id, code, status, result, error, logs, connectors, seed, clock, passes, created_at, updated_at, lease_owner, lease_until, approved, configuration)
	VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $15, $16, $17, $18)`

const executionColumns = `id, code, status, result, error, logs, connectors, seed, clock, passes, created_at, updated_at, lease_owner, lease_until, approved, configuration`

func scanExecution(row pgx.Row) (*store.Execution, error) {
	var (
		e                      store.Execution
		code, errText          []byte
		status                 string
		result                 *string
		logs, conns, clockText string
		config                 string
	)
	var approved int64
	if err := row.Scan(&e.ID, &code, &status, &result, &errText, &logs, &conns, &e.Seed, &clockText, &e.Passes, &e.CreatedAt, &e.UpdatedAt, &e.LeaseOwner, &e.LeaseUntil, &approved, &config); err != nil {
		return nil, err
	}
	if err := columns.DecodeConfiguration(&e, config); err != nil {
		return nil, err
	}
	e.Approved = uint64(approved)
	e.Code, e.Error, e.Status = string(code), string(errText), store.Status(status)
	if result != nil {
		e.Value = json.RawMessage(*result)
	}
	if err := columns.Decode(&e, logs, conns, clockText); err != nil {
		return nil, err
	}
	return &e, nil
}

const entryColumns = `seq, connector, method, args, result, error, requires_approval, ephemeral, state, updated_at, uncertain, call_end, error_name, error_data, upstream`

func scanEntry(row pgx.Row, dest ...any) (*store.Entry, error) {
	var (
		e       store.Entry
		seq     int64
		args    string
		result  *string
		errText []byte
		errName []byte
		errData *string
		state   string
		up      []byte
	)
	dest = append(dest, &seq, &e.Connector, &e.Method, &args, &result, &errText, &e.RequiresApproval, &e.Ephemeral, &state, &e.UpdatedAt, &e.Uncertain, &e.End, &errName, &errData, &up)
	if err := row.Scan(dest...); err != nil {
		return nil, err
	}
	e.Seq, e.Args, e.Error, e.ErrorName, e.State, e.Upstream = uint64(seq), json.RawMessage(args), string(errText), string(errName), store.EntryState(state), string(up)
	if result != nil {
		e.Result = json.RawMessage(*result)
	}
	if errData != nil {
		e.ErrorData = json.RawMessage(*errData)
	}
	return &e, nil
}

// readOnly runs fn in a read-only REPEATABLE READ transaction (one snapshot:
// an execution and its log as they were at one moment), bounded by the
// query timeout.
func (s *pgStore) readOnly(ctx context.Context, fn func(context.Context, pgx.Tx) error) error {
	ctx, cancel := s.deadline(ctx)
	defer cancel()
	return retryRead(ctx, func(ctx context.Context) error {
		return pgx.BeginTxFunc(ctx, s.pool, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly},
			func(tx pgx.Tx) error { return fn(ctx, tx) })
	})
}

// Execution implements store.Store.
func (s *pgStore) Execution(ctx context.Context, runtime, id string) (*store.Execution, error) {
	if !key(runtime) || !key(id) {
		return nil, fmt.Errorf("%w: %q", store.ErrNotFound, id)
	}
	var e *store.Execution
	err := s.readOnly(ctx, func(ctx context.Context, tx pgx.Tx) error {
		var err error
		e, err = scanExecution(tx.QueryRow(ctx, `SELECT `+executionColumns+` FROM codemode_executions WHERE runtime = $1 AND id = $2`, runtime, id))
		if err != nil {
			return err
		}
		logs, err := readLogs(ctx, tx, runtime, []string{id})
		e.Log = logs[id]
		return err
	})
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, fmt.Errorf("%w: %s", store.ErrNotFound, id)
	}
	if err != nil {
		return nil, s.wrap("reading execution "+id, err)
	}
	return e, nil
}

// readLogs returns the tool logs of the executions ids, each in seq order
// and non-nil.
func readLogs(ctx context.Context, tx pgx.Tx, runtime string, ids []string) (map[string][]store.Entry, error) {
	logs := make(map[string][]store.Entry, len(ids))
	for _, id := range ids {
		logs[id] = []store.Entry{}
	}
	err := query(ctx, tx, func(rows pgx.Rows) error {
		var id string
		e, err := scanEntry(rows, &id)
		if err != nil {
			return err
		}
		logs[id] = append(logs[id], *e)
		return nil
	}, `SELECT execution_id, `+entryColumns+` FROM codemode_tool_log
		WHERE runtime = $1 AND execution_id = ANY($2) ORDER BY execution_id, seq`, runtime, ids)
	return logs, err
}

// Executions implements store.Store.
func (s *pgStore) Executions(ctx context.Context, runtime string, limit int) ([]*store.Execution, error) {
	if !key(runtime) {
		return nil, nil
	}
	var lim any // NULL: no limit
	if limit > 0 {
		lim = limit
	}
	var out []*store.Execution
	err := s.readOnly(ctx, func(ctx context.Context, tx pgx.Tx) error {
		out = nil
		var ids []string
		err := query(ctx, tx, func(rows pgx.Rows) error {
			e, err := scanExecution(rows)
			if err != nil {
				return err
			}
			out, ids = append(out, e), append(ids, e.ID)
			return nil
		}, `SELECT `+executionColumns+` FROM codemode_executions WHERE runtime = $1
			ORDER BY created_at DESC, id DESC LIMIT $2`, runtime, lim)
		if err != nil || len(ids) == 0 {
			return err
		}
		logs, err := readLogs(ctx, tx, runtime, ids)
		for _, e := range out {
			e.Log = logs[e.ID]
		}
		return err
	})
	if err != nil {
		return nil, s.wrap("listing executions", err)
	}
	return out, nil
}

func statusTexts(from []store.Status) []string {
	out := make([]string, len(from))
	for i, f := range from {
		out[i] = string(f)
	}
	return out
}

// TransitionExecution implements store.Store: one UPDATE … WHERE status =
// ANY(from); of concurrent callers, the first to commit wins and the others
// re-check the new row and match nothing.
func (s *pgStore) TransitionExecution(ctx context.Context, runtime, id string, from []store.Status, to store.Status, u store.ExecutionUpdate) (bool, error) {
	if len(from) == 0 {
		return false, errors.New("postgres: a transition needs at least one from state")
	}
	if !key(runtime) || !key(id) {
		return false, nil
	}
	set := []string{"status = $1"}
	args := []any{string(to)}
	add := func(column string, v any) {
		args = append(args, v)
		set = append(set, fmt.Sprintf("%s = $%d", column, len(args)))
	}
	if u.At != 0 {
		add("updated_at", u.At)
	}
	if u.Value != nil {
		add("result", string(u.Value))
	}
	if u.Error != nil {
		add("error", []byte(*u.Error))
	}
	if u.Logs != nil {
		t, err := jsonText(u.Logs)
		if err != nil {
			return false, fmt.Errorf("postgres: moving execution %s to %s: %w", id, to, err)
		}
		add("logs", t)
	}
	if u.Seed != nil {
		add("seed", u.Seed)
	}
	if u.Clock != nil {
		t, err := jsonText(u.Clock)
		if err != nil {
			return false, fmt.Errorf("postgres: moving execution %s to %s: %w", id, to, err)
		}
		add("clock", t)
	}
	if u.Passes != nil {
		add("passes", *u.Passes)
	}
	if u.Lease != nil {
		add("lease_owner", u.Lease.Owner)
		add("lease_until", u.Lease.Until)
	}
	if u.Approved != nil {
		a, err := seqParam(*u.Approved)
		if err != nil {
			return false, err
		}
		add("approved", a)
	}
	n := len(args)
	args = append(args, runtime, id, statusTexts(from))
	tag, err := s.exec(ctx, fmt.Sprintf(`UPDATE codemode_executions SET %s WHERE runtime = $%d AND id = $%d AND status = ANY($%d)`,
		strings.Join(set, ", "), n+1, n+2, n+3), args...)
	if err != nil {
		return false, s.wrap(fmt.Sprintf("moving execution %s to %s", id, to), err)
	}
	return tag.RowsAffected() == 1, nil
}

// ExpireExecutions implements store.Store. The rows are locked in ID
// order and rows another transaction holds are skipped (an approval or an
// expiry on another replica is deciding them), so replicas expiring at
// once neither deadlock nor expire one run twice.
func (s *pgStore) ExpireExecutions(ctx context.Context, runtime string, from store.Status, before int64, to store.Status, message string, at int64) ([]string, error) {
	if !key(runtime) {
		return nil, nil
	}
	var ids []string
	ctx, cancel := s.deadline(ctx)
	defer cancel()
	err := retry(ctx, func(ctx context.Context) error {
		ids = nil
		return query(ctx, s.pool, func(rows pgx.Rows) error {
			var id string
			if err := rows.Scan(&id); err != nil {
				return err
			}
			ids = append(ids, id)
			return nil
		}, expireSQL, string(to), []byte(message), at, runtime, string(from), before)
	})
	if err != nil {
		return nil, s.wrap(fmt.Sprintf("expiring %s executions", from), err)
	}
	slices.Sort(ids)
	return ids, nil
}

const expireSQL = `WITH due AS (
			SELECT id FROM codemode_executions WHERE runtime = $4 AND status = $5 AND updated_at < $6 AND lease_until < $3
			ORDER BY id FOR UPDATE SKIP LOCKED
		)
		UPDATE codemode_executions e SET status = $1, error = $2, updated_at = $3, lease_owner = '', lease_until = 0
		FROM due WHERE e.runtime = $4 AND e.id = due.id AND e.status = $5 AND e.lease_until < $3
		RETURNING e.id`

// LeaseExecution implements store.Store: one UPDATE whose WHERE names the
// owner or an ended lease; of replicas taking over one orphan at once, the
// first to commit wins and the others re-check the new row (its lease is
// live) and match nothing.
func (s *pgStore) LeaseExecution(ctx context.Context, runtime, id string, l store.Lease, at int64) (bool, error) {
	if !key(runtime) || !key(id) || !key(l.Owner) {
		return false, nil
	}
	tag, err := s.exec(ctx, `UPDATE codemode_executions SET lease_owner = $3, lease_until = $4, updated_at = $5
		WHERE runtime = $1 AND id = $2 AND status = 'running' AND (lease_owner = $3 OR lease_until < $5)`,
		runtime, id, l.Owner, l.Until, at)
	if err != nil {
		return false, s.wrap("leasing execution "+id, err)
	}
	return tag.RowsAffected() == 1, nil
}

// Orphans implements store.Store.
func (s *pgStore) Orphans(ctx context.Context, runtime string, at int64) ([]string, error) {
	if !key(runtime) {
		return nil, nil
	}
	return s.column(ctx, "listing orphaned executions", `SELECT id FROM codemode_executions WHERE runtime = $1 AND status = 'running' AND lease_until < $2
			ORDER BY created_at, id`, runtime, at)
}

// Runtimes implements store.RuntimeLister.
func (s *pgStore) Runtimes(ctx context.Context) ([]string, error) {
	names, err := s.column(ctx, "listing runtime names", `SELECT DISTINCT runtime FROM codemode_executions`)
	slices.Sort(names) // byte order, whatever the database's collation
	return names, err
}

// column runs q, a query of one text column, within the statement
// deadline and retried as reads are, and returns its values in order;
// errors say what (the doing of it) failed.
func (s *pgStore) column(ctx context.Context, what, q string, args ...any) ([]string, error) {
	ctx, cancel := s.deadline(ctx)
	defer cancel()
	var out []string
	err := retryRead(ctx, func(ctx context.Context) error {
		out = nil
		return query(ctx, s.pool, func(rows pgx.Rows) error {
			var v string
			if err := rows.Scan(&v); err != nil {
				return err
			}
			out = append(out, v)
			return nil
		}, q, args...)
	})
	if err != nil {
		return nil, s.wrap(what, err)
	}
	return out, nil
}

// DeleteExecution implements store.Store.
func (s *pgStore) DeleteExecution(ctx context.Context, runtime, id string) (*store.Execution, error) {
	if !key(runtime) || !key(id) {
		return nil, nil
	}
	var e *store.Execution
	err := s.queryRow(ctx, func(row pgx.Row) (err error) {
		e, err = scanExecution(row)
		return err
	}, `DELETE FROM codemode_executions WHERE runtime = $1 AND id = $2 RETURNING `+executionColumns, runtime, id)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, s.wrap("deleting execution "+id, err)
	}
	return e, nil
}

// terminal lists the terminal states for SQL.
const terminal = `('completed', 'error', 'rejected', 'rolled_back')`

// pruneTail deletes all but the newest $14 terminal executions of runtime
// $1, after a WITH clause. Rows another transaction holds are left for a
// later prune: replicas pruning at once would otherwise lock the same rows
// in different orders.
const pruneTail = `doomed AS (
		SELECT id FROM codemode_executions WHERE runtime = $1 AND status IN ` + terminal + `
		ORDER BY created_at DESC, id DESC OFFSET $14
		FOR UPDATE SKIP LOCKED
	)
	DELETE FROM codemode_executions e USING doomed
	WHERE e.runtime = $1 AND e.id = doomed.id AND e.status IN ` + terminal

// PruneExecutions implements store.Store.
func (s *pgStore) PruneExecutions(ctx context.Context, runtime string, keep int) (int, error) {
	if !key(runtime) {
		return 0, nil
	}
	tag, err := s.exec(ctx, `WITH `+strings.ReplaceAll(pruneTail, "$14", "$2"), runtime, max(keep, 0))
	if err != nil {
		return 0, s.wrap("pruning executions", err)
	}
	return int(tag.RowsAffected()), nil
}

// PruneOlder implements store.Store. Rows another transaction holds are
// left for a later prune (see pruneTail).
func (s *pgStore) PruneOlder(ctx context.Context, runtime string, before int64) (int, error) {
	if !key(runtime) {
		return 0, nil
	}
	tag, err := s.exec(ctx, `WITH doomed AS (
		SELECT id FROM codemode_executions WHERE runtime = $1 AND status IN `+terminal+` AND created_at < $2
		FOR UPDATE SKIP LOCKED
	)
	DELETE FROM codemode_executions e USING doomed
	WHERE e.runtime = $1 AND e.id = doomed.id AND e.status IN `+terminal, runtime, before)
	if err != nil {
		return 0, s.wrap("pruning executions", err)
	}
	return int(tag.RowsAffected()), nil
}

// Entry implements store.Store.
func (s *pgStore) Entry(ctx context.Context, runtime, id string, seq uint64) (*store.Entry, bool, error) {
	sq, err := seqParam(seq)
	if err != nil || !key(runtime) || !key(id) {
		return nil, false, nil
	}
	var e *store.Entry
	err = s.readRow(ctx, func(row pgx.Row) (err error) {
		e, err = scanEntry(row)
		return err
	}, `SELECT `+entryColumns+` FROM codemode_tool_log WHERE runtime = $1 AND execution_id = $2 AND seq = $3`, runtime, id, sq)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, s.wrap(fmt.Sprintf("reading entry %d of %s", seq, id), err)
	}
	return e, true, nil
}

// running is the guard of the statements that only a running execution
// allows: it share-locks the execution row until the statement's
// transaction ends, so a concurrent pause, reject or expiry either commits
// first (and the guard sees it) or waits for this statement.
const running = `EXISTS (SELECT 1 FROM codemode_executions WHERE runtime = $1 AND id = $2 AND status = 'running' FOR SHARE)`

// InsertEntry implements store.Store.
func (s *pgStore) InsertEntry(ctx context.Context, runtime, id string, e *store.Entry) (bool, error) {
	sq, err := seqParam(e.Seq)
	if err != nil {
		return false, err
	}
	if !key(runtime) || !key(id) {
		return false, nil
	}
	tag, err := s.exec(ctx, `INSERT INTO codemode_tool_log
		(runtime, execution_id, seq, connector, method, args, result, error, requires_approval, ephemeral, state, updated_at, uncertain, call_end, error_name, error_data, upstream)
		SELECT $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17
		WHERE `+running+`
		ON CONFLICT DO NOTHING`,
		runtime, id, sq, e.Connector, e.Method, string(e.Args), nullable(e.Result), []byte(e.Error), e.RequiresApproval, e.Ephemeral, string(e.State), e.UpdatedAt, e.Uncertain, e.End, []byte(e.ErrorName), nullable(e.ErrorData), []byte(e.Upstream))
	if err != nil {
		return false, s.wrap(fmt.Sprintf("recording entry %d of %s", e.Seq, id), err)
	}
	return tag.RowsAffected() == 1, nil
}

// TransitionEntry implements store.Store: one UPDATE … WHERE state =
// ANY(from). A transition to executing (the claim of an approved action)
// also needs the execution to be running, under a share lock of its row.
func (s *pgStore) TransitionEntry(ctx context.Context, runtime, id string, seq uint64, from []store.EntryState, to store.EntryState, u store.EntryUpdate) (bool, error) {
	if len(from) == 0 {
		return false, errors.New("postgres: a transition needs at least one from state")
	}
	sq, err := seqParam(seq)
	if err != nil || !key(runtime) || !key(id) {
		return false, nil
	}
	states := make([]string, len(from))
	for i, f := range from {
		states[i] = string(f)
	}
	args := []any{runtime, id, sq, states, string(to)}
	set := []string{"state = $5"}
	add := func(column string, v any) {
		args = append(args, v)
		set = append(set, fmt.Sprintf("%s = $%d", column, len(args)))
	}
	if u.At != 0 {
		add("updated_at", u.At)
	}
	if u.Result != nil {
		add("result", string(u.Result))
	}
	if u.Error != nil {
		add("error", []byte(*u.Error))
	}
	if u.Uncertain != nil {
		add("uncertain", *u.Uncertain)
	}
	if u.End != "" {
		add("call_end", u.End)
	}
	if u.ErrorName != "" {
		add("error_name", []byte(u.ErrorName))
	}
	if u.ErrorData != nil {
		add("error_data", string(u.ErrorData))
	}
	q := `UPDATE codemode_tool_log SET ` + strings.Join(set, ", ") + ` WHERE runtime = $1 AND execution_id = $2 AND seq = $3 AND state = ANY($4)`
	switch to {
	case store.EntryExecuting:
		q += ` AND ` + running
	case store.EntryApplied:
		// The record of a call that happened commits asynchronously (no
		// WAL flush of its own): losing it in a server crash leaves the
		// entry executing, which a replay refuses to guess about, so it
		// can never cause a second application; and the next synchronous
		// commit (the next call's executing mark, the pass's end) flushes
		// the WAL past it. One disk flush per call instead of two.
		q += ` AND (SELECT set_config('synchronous_commit', 'off', true)) IS NOT NULL`
	}
	tag, err := s.exec(ctx, q, args...)
	if err != nil {
		return false, s.wrap(fmt.Sprintf("moving entry %d of %s to %s", seq, id, to), err)
	}
	return tag.RowsAffected() == 1, nil
}

// Pending implements store.Store.
func (s *pgStore) Pending(ctx context.Context, runtime, id string) ([]store.PendingAction, error) {
	if !key(runtime) || !key(id) {
		return []store.PendingAction{}, nil
	}
	ctx, cancel := s.deadline(ctx)
	defer cancel()
	var out []store.PendingAction
	err := retryRead(ctx, func(ctx context.Context) error {
		out = []store.PendingAction{}
		return query(ctx, s.pool, func(rows pgx.Rows) error {
			var (
				p   store.PendingAction
				seq int64
				a   string
			)
			if err := rows.Scan(&p.ExecutionID, &seq, &p.Connector, &p.Method, &a, &p.Uncertain); err != nil {
				return err
			}
			p.Seq, p.Args = uint64(seq), json.RawMessage(a)
			out = append(out, p)
			return nil
		}, `SELECT t.execution_id, t.seq, t.connector, t.method, t.args, t.uncertain FROM codemode_tool_log t
		JOIN codemode_executions e ON e.runtime = t.runtime AND e.id = t.execution_id
		WHERE t.runtime = $1 AND t.state = 'pending' AND e.status = 'paused' AND ($2 = '' OR t.execution_id = $2)
		ORDER BY e.created_at, e.id, t.seq`, runtime, id)
	})
	if err != nil {
		return nil, s.wrap("listing pending actions", err)
	}
	return out, nil
}
