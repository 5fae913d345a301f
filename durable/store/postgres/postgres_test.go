package postgres_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/codemode-go/codemode/client"
	"github.com/codemode-go/codemode/codetool"
	"github.com/codemode-go/codemode/contract"
	"github.com/codemode-go/codemode/drivers/quickjs"
	"github.com/codemode-go/codemode/durable"
	"github.com/codemode-go/codemode/durable/store"
	"github.com/codemode-go/codemode/durable/store/postgres"
	"github.com/codemode-go/codemode/durable/store/storetest"
)

// The tests run against the real PostgreSQL server named by the DSN in
// CODEMODE_TEST_POSTGRES (scripts/postgres starts a private one; the
// README's test command does when PostgreSQL is installed). Unset, they
// skip, unless CODEMODE_REQUIRE_POSTGRES=1 (CI) makes that a failure.
func testDSN(t testing.TB) string {
	t.Helper()
	dsn := os.Getenv("CODEMODE_TEST_POSTGRES")
	if dsn == "" {
		if os.Getenv("CODEMODE_REQUIRE_POSTGRES") == "1" {
			t.Fatal("CODEMODE_TEST_POSTGRES is unset and CODEMODE_REQUIRE_POSTGRES=1: start a server (scripts/postgres start DIR) and export its DSN")
		}
		t.Skip("CODEMODE_TEST_POSTGRES is unset (a PostgreSQL DSN; scripts/postgres starts a private server)")
	}
	return dsn
}

// newSchema returns a fresh schema name, dropped when the test ends.
func newSchema(t testing.TB) string {
	t.Helper()
	dsn := testDSN(t)
	var b [6]byte
	_, _ = rand.Read(b[:])
	schema := "codemode_test_" + hex.EncodeToString(b[:])
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		conn, err := pgx.Connect(ctx, dsn)
		if err != nil {
			t.Logf("dropping schema %s: %v", schema, err)
			return
		}
		defer conn.Close(ctx)
		if _, err := conn.Exec(ctx, "DROP SCHEMA IF EXISTS "+pgx.Identifier{schema}.Sanitize()+" CASCADE"); err != nil {
			t.Logf("dropping schema %s: %v", schema, err)
		}
	})
	return schema
}

// open opens a store on schema (a replica: its own pool), closed when the
// test ends. It fails the test when the server cannot be reached.
func open(t testing.TB, schema string, opts postgres.Options) store.Store {
	t.Helper()
	opts.Schema = schema
	s, err := postgres.Open(context.Background(), testDSN(t), opts)
	if err != nil {
		t.Fatalf("postgres.Open: %v", err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

func TestStoreContract(t *testing.T) {
	storetest.Run(t, func(t *testing.T) store.Store {
		return open(t, newSchema(t), postgres.Options{})
	})
}

// Replicas starting at once migrate one after the other: every Open
// succeeds and the schema is at the current version once.
func TestConcurrentMigration(t *testing.T) {
	schema := newSchema(t)
	dsn := testDSN(t)
	var wg sync.WaitGroup
	errs := make([]error, 8)
	stores := make([]store.Store, 8)
	for i := range 8 {
		wg.Go(func() {
			stores[i], errs[i] = postgres.Open(context.Background(), dsn, postgres.Options{Schema: schema, MaxConns: 2})
		})
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("replica %d: %v", i, err)
		}
		defer stores[i].Close()
	}
	var versions []int
	rows, err := postgres.Pool(stores[0]).Query(context.Background(), "SELECT version FROM codemode_schema_version")
	if err != nil {
		t.Fatal(err)
	}
	versions, err = pgx.CollectRows(rows, pgx.RowTo[int])
	if err != nil || len(versions) != 1 || versions[0] != postgres.SchemaVersion {
		t.Fatalf("schema versions %v, %v; want one row %d", versions, err, postgres.SchemaVersion)
	}
	// The replicas share one history.
	ctx := context.Background()
	e := &store.Execution{ID: "exec_1", Code: "1", Status: store.StatusRunning, CreatedAt: 1, UpdatedAt: 1}
	if _, err := stores[3].CreateExecution(ctx, "default", e, -1); err != nil {
		t.Fatal(err)
	}
	if got, err := stores[6].Execution(ctx, "default", "exec_1"); err != nil || got.Code != "1" {
		t.Fatalf("another replica reads %+v, %v", got, err)
	}
}

func TestOpenRefusesNewerSchema(t *testing.T) {
	schema := newSchema(t)
	s := open(t, schema, postgres.Options{})
	if _, err := postgres.Pool(s).Exec(context.Background(), "UPDATE codemode_schema_version SET version = 99"); err != nil {
		t.Fatal(err)
	}
	_, err := postgres.Open(context.Background(), testDSN(t), postgres.Options{Schema: schema})
	if err == nil || !strings.Contains(err.Error(), "schema version is 99, newer than this program's "+fmt.Sprint(postgres.SchemaVersion)) {
		t.Fatalf("Open of a newer journal: %v", err)
	}
}

// A database that cannot be reached is a clear error wrapping
// ErrUnavailable, within the connect timeout.
func TestOpenUnreachable(t *testing.T) {
	start := time.Now()
	_, err := postgres.Open(context.Background(), "postgres://codemode:secret-password@127.0.0.1:1/journal?sslmode=disable", postgres.Options{ConnectTimeout: 2 * time.Second})
	if !errors.Is(err, postgres.ErrUnavailable) {
		t.Fatalf("Open of a closed port: %v, want ErrUnavailable", err)
	}
	if msg := err.Error(); !strings.Contains(msg, "the database is unavailable at 127.0.0.1:1/journal") || strings.Contains(msg, "secret-password") {
		t.Fatalf("error %q: want the address, never the password", msg)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Fatalf("Open took %s", d)
	}
	for _, dsn := range []string{"postgres://host:notaport/db", "mysql://x"} {
		if _, err := postgres.Open(context.Background(), dsn, postgres.Options{}); err == nil || errors.Is(err, postgres.ErrUnavailable) {
			t.Errorf("Open(%q): %v, want a configuration error", dsn, err)
		}
	}
}

// The caller's deadline and the query timeout bound every statement.
func TestQueryTimeout(t *testing.T) {
	schema := newSchema(t)
	other := open(t, schema, postgres.Options{})
	s := open(t, schema, postgres.Options{QueryTimeout: 300 * time.Millisecond})
	ctx := context.Background()
	if _, err := s.CreateExecution(ctx, "default", &store.Execution{ID: "exec_1", Code: "1", Status: store.StatusRunning, CreatedAt: 1, UpdatedAt: 1}, -1); err != nil {
		t.Fatal(err)
	}
	// Another session holds the row: the transition waits, then gives up.
	tx, err := postgres.Pool(other).Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = tx.Rollback(ctx) }()
	if _, err := tx.Exec(ctx, "SELECT 1 FROM codemode_executions WHERE id = 'exec_1' FOR UPDATE"); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	_, err = s.TransitionExecution(ctx, "default", "exec_1", []store.Status{store.StatusRunning}, store.StatusPaused, store.ExecutionUpdate{})
	if err == nil || !strings.Contains(err.Error(), "no answer from") || time.Since(start) > 5*time.Second {
		t.Fatalf("a blocked transition: %v after %s", err, time.Since(start))
	}
	_ = tx.Rollback(ctx)
	// The pool recovers: the connection the timeout broke is replaced.
	ok, err := s.TransitionExecution(ctx, "default", "exec_1", []store.Status{store.StatusRunning}, store.StatusPaused, store.ExecutionUpdate{})
	if err != nil || !ok {
		t.Fatalf("after the timeout: %v, %v", ok, err)
	}
}

// CreateExecution with keep prunes in the statement that inserts, and a
// taken ID fails it whole.
func TestCreatePrunes(t *testing.T) {
	s := open(t, newSchema(t), postgres.Options{})
	ctx := context.Background()
	for i, st := range []store.Status{store.StatusCompleted, store.StatusError, store.StatusPaused} {
		id := fmt.Sprintf("exec_%d", i)
		if _, err := s.CreateExecution(ctx, "default", &store.Execution{ID: id, Code: "1", Status: store.StatusRunning, CreatedAt: int64(i), UpdatedAt: int64(i)}, -1); err != nil {
			t.Fatal(err)
		}
		if ok, err := s.TransitionExecution(ctx, "default", id, []store.Status{store.StatusRunning}, st, store.ExecutionUpdate{}); !ok || err != nil {
			t.Fatal(ok, err)
		}
	}
	n, err := s.CreateExecution(ctx, "default", &store.Execution{ID: "exec_new", Code: "1", Status: store.StatusRunning, CreatedAt: 9, UpdatedAt: 9}, 1)
	if err != nil || n != 1 {
		t.Fatalf("create with keep 1 pruned %d, %v; want 1", n, err)
	}
	list, err := s.Executions(ctx, "default", 0)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, e := range list {
		ids = append(ids, e.ID)
	}
	if want := "exec_new exec_2 exec_1"; strings.Join(ids, " ") != want {
		t.Fatalf("after create with keep 1: %v, want %s", ids, want)
	}
	if _, err := s.CreateExecution(ctx, "default", &store.Execution{ID: "exec_new", Code: "1", Status: store.StatusRunning}, 0); err == nil || !strings.Contains(err.Error(), "already exists") {
		t.Fatalf("creating exec_new twice: %v", err)
	}
}

// A journal at schema version 3 (before configuration fingerprints) is
// migrated in place: its runs read back with none.
func TestMigrateFromVersion3(t *testing.T) {
	schema := newSchema(t)
	s := open(t, schema, postgres.Options{})
	ctx := context.Background()
	for _, q := range []string{"ALTER TABLE codemode_executions DROP COLUMN configuration", "ALTER TABLE codemode_tool_log DROP COLUMN call_end", "ALTER TABLE codemode_tool_log DROP COLUMN error_name", "ALTER TABLE codemode_tool_log DROP COLUMN error_data", "ALTER TABLE codemode_tool_log DROP COLUMN upstream", "UPDATE codemode_schema_version SET version = 3",
		`INSERT INTO codemode_executions (runtime, id, code, status, created_at, updated_at) VALUES ('default', 'exec_1', 'x', 'paused', 1, 2)`} {
		if _, err := postgres.Pool(s).Exec(ctx, q); err != nil {
			t.Fatal(q, err)
		}
	}
	migrated := open(t, schema, postgres.Options{})
	if e, err := migrated.Execution(ctx, "default", "exec_1"); err != nil || e.Configuration != nil || e.Status != store.StatusPaused {
		t.Fatalf("migrated execution %+v, %v", e, err)
	}
}

// A journal at schema version 4 (before calls' ends) is migrated in
// place: its entries read back with no end, and new ones keep theirs.
func TestMigrateFromVersion4(t *testing.T) {
	schema := newSchema(t)
	s := open(t, schema, postgres.Options{})
	ctx := context.Background()
	for _, q := range []string{"ALTER TABLE codemode_tool_log DROP COLUMN call_end", "ALTER TABLE codemode_tool_log DROP COLUMN error_name", "ALTER TABLE codemode_tool_log DROP COLUMN error_data", "ALTER TABLE codemode_tool_log DROP COLUMN upstream", "UPDATE codemode_schema_version SET version = 4",
		`INSERT INTO codemode_executions (runtime, id, code, status, created_at, updated_at) VALUES ('default', 'exec_1', 'x', 'running', 1, 2)`,
		`INSERT INTO codemode_tool_log (runtime, execution_id, seq, connector, method, args, requires_approval, ephemeral, state, updated_at)
			VALUES ('default', 'exec_1', 1, 'svc', 'read', '{}', false, false, 'applied', 2)`} {
		if _, err := postgres.Pool(s).Exec(ctx, q); err != nil {
			t.Fatal(q, err)
		}
	}
	migrated := open(t, schema, postgres.Options{})
	if ok, err := migrated.InsertEntry(ctx, "default", "exec_1", &store.Entry{Seq: 2, Connector: "svc", Method: "read", Args: []byte(`{}`), State: store.EntryError, End: "failed"}); err != nil || !ok {
		t.Fatalf("inserting an entry after the migration: %v, %v", ok, err)
	}
	e, err := migrated.Execution(ctx, "default", "exec_1")
	if err != nil || len(e.Log) != 2 || e.Log[0].End != "" || e.Log[0].State != store.EntryApplied || e.Log[1].End != "failed" {
		t.Fatalf("migrated execution %+v, %v", e, err)
	}
}

// A journal at schema version 5 (before error names) is migrated in
// place: its failed entries read back with no name (a plain Error, as they
// were replayed before), and new ones keep theirs.
func TestMigrateFromVersion5(t *testing.T) {
	schema := newSchema(t)
	s := open(t, schema, postgres.Options{})
	ctx := context.Background()
	for _, q := range []string{"ALTER TABLE codemode_tool_log DROP COLUMN error_name", "ALTER TABLE codemode_tool_log DROP COLUMN error_data", "ALTER TABLE codemode_tool_log DROP COLUMN upstream", "UPDATE codemode_schema_version SET version = 5",
		`INSERT INTO codemode_executions (runtime, id, code, status, created_at, updated_at) VALUES ('default', 'exec_1', 'x', 'running', 1, 2)`,
		`INSERT INTO codemode_tool_log (runtime, execution_id, seq, connector, method, args, error, requires_approval, ephemeral, state, updated_at, call_end)
			VALUES ('default', 'exec_1', 1, 'svc', 'read', '{}', 'upstream is down', false, false, 'error', 2, 'failed')`} {
		if _, err := postgres.Pool(s).Exec(ctx, q); err != nil {
			t.Fatal(q, err)
		}
	}
	migrated := open(t, schema, postgres.Options{})
	if ok, err := migrated.InsertEntry(ctx, "default", "exec_1", &store.Entry{Seq: 2, Connector: "svc", Method: "read", Args: []byte(`{}`),
		State: store.EntryError, Error: "HTTP 404 Not Found", ErrorName: "HTTPError", End: "failed"}); err != nil || !ok {
		t.Fatalf("inserting an entry after the migration: %v, %v", ok, err)
	}
	e, err := migrated.Execution(ctx, "default", "exec_1")
	if err != nil || len(e.Log) != 2 || e.Log[0].ErrorName != "" || e.Log[0].ErrorData != nil || e.Log[0].Error != "upstream is down" || e.Log[1].ErrorName != "HTTPError" {
		t.Fatalf("migrated execution %+v, %v", e, err)
	}
}

// A journal at schema version 6 (error names, before their properties) is
// migrated in place: its entries keep their names and read back with no
// properties, and new ones keep theirs.
func TestMigrateFromVersion6(t *testing.T) {
	schema := newSchema(t)
	s := open(t, schema, postgres.Options{})
	ctx := context.Background()
	for _, q := range []string{"ALTER TABLE codemode_tool_log DROP COLUMN error_data", "ALTER TABLE codemode_tool_log DROP COLUMN upstream", "UPDATE codemode_schema_version SET version = 6",
		`INSERT INTO codemode_executions (runtime, id, code, status, created_at, updated_at) VALUES ('default', 'exec_1', 'x', 'running', 1, 2)`,
		`INSERT INTO codemode_tool_log (runtime, execution_id, seq, connector, method, args, error, error_name, requires_approval, ephemeral, state, updated_at, call_end)
			VALUES ('default', 'exec_1', 1, 'svc', 'read', '{}', 'HTTP 404', 'HTTPError', false, false, 'error', 2, 'failed')`} {
		if _, err := postgres.Pool(s).Exec(ctx, q); err != nil {
			t.Fatal(q, err)
		}
	}
	migrated := open(t, schema, postgres.Options{})
	if ok, err := migrated.InsertEntry(ctx, "default", "exec_1", &store.Entry{Seq: 2, Connector: "svc", Method: "read", Args: []byte(`{}`),
		State: store.EntryError, Error: "HTTP 404", ErrorName: "HTTPError", ErrorData: []byte(`{"status":404}`), End: "failed"}); err != nil || !ok {
		t.Fatalf("inserting an entry after the migration: %v, %v", ok, err)
	}
	e, err := migrated.Execution(ctx, "default", "exec_1")
	if err != nil || len(e.Log) != 2 || e.Log[0].ErrorName != "HTTPError" || e.Log[0].ErrorData != nil || string(e.Log[1].ErrorData) != `{"status":404}` {
		t.Fatalf("migrated execution %+v, %v", e, err)
	}
}

// A journal at schema version 7 (before entries kept the upstream tool
// they named) is migrated in place: its entries read back with none,
// which durable does not compare, and new ones keep theirs.
func TestMigrateFromVersion7(t *testing.T) {
	schema := newSchema(t)
	s := open(t, schema, postgres.Options{})
	ctx := context.Background()
	for _, q := range []string{"ALTER TABLE codemode_tool_log DROP COLUMN upstream", "UPDATE codemode_schema_version SET version = 7",
		`INSERT INTO codemode_executions (runtime, id, code, status, created_at, updated_at) VALUES ('default', 'exec_1', 'x', 'running', 1, 2)`,
		`INSERT INTO codemode_tool_log (runtime, execution_id, seq, connector, method, args, requires_approval, ephemeral, state, updated_at)
			VALUES ('default', 'exec_1', 1, 'files', 'get_file', '{}', true, false, 'pending', 2)`} {
		if _, err := postgres.Pool(s).Exec(ctx, q); err != nil {
			t.Fatal(q, err)
		}
	}
	migrated := open(t, schema, postgres.Options{})
	if ok, err := migrated.InsertEntry(ctx, "default", "exec_1", &store.Entry{Seq: 2, Connector: "files", Method: "get_file", Args: []byte(`{}`),
		State: store.EntryExecuting, Upstream: "MCP tool get-file"}); err != nil || !ok {
		t.Fatalf("inserting an entry after the migration: %v, %v", ok, err)
	}
	e, err := migrated.Execution(ctx, "default", "exec_1")
	if err != nil || len(e.Log) != 2 || e.Log[0].Upstream != "" || e.Log[1].Upstream != "MCP tool get-file" {
		t.Fatalf("migrated execution %+v, %v", e, err)
	}
}

// MaxExecutions keeps the same runs on PostgreSQL as on SQLite when the
// runs end before their record is written (durable writes it once, in its
// end state): the paused run and MaxExecutions+1 ended ones.
func TestExecuteKeepsMaxExecutions(t *testing.T) {
	st := open(t, newSchema(t), postgres.Options{})
	rt, err := client.NewRuntime(context.Background(), quickjs.New(quickjs.Options{Timeout: 30 * time.Second}))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = rt.Close() })
	act := must(must(contract.NewTool("act", "A write that needs approval.", func(ctx context.Context, in keyInput) (effectOutput, error) {
		return effectOutput{Key: in.Key, Done: true}, nil
	})).WithPolicy(contract.Policy{RequiresApproval: true}))
	h, err := durable.New(st, rt, must(contract.NewNamespaced(contract.Namespace{Name: "svc", Tools: []*contract.Tool{act}})),
		durable.Options{MaxExecutions: 2, PauseSettle: 2 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if out, err := h.Execute(ctx, `await svc.act({ key: "a" })`); err != nil || out.Status != codetool.StatusPaused {
		t.Fatalf("Execute: %+v, %v", out, err)
	}
	for i := range 4 {
		if out, err := h.Execute(ctx, fmt.Sprint(i)); err != nil || out.Status != codetool.StatusCompleted {
			t.Fatalf("Execute(%d): %+v, %v", i, out, err)
		}
	}
	l, err := h.Executions(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	var statuses []string
	for _, e := range l {
		statuses = append(statuses, string(e.Status))
	}
	if want := "completed completed completed paused"; strings.Join(statuses, " ") != want {
		t.Fatalf("executions %v, want %s", statuses, want)
	}
}
