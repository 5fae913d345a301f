package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"slices"
	"testing"

	"github.com/codemode-go/codemode/durable/store"
)

// A journal written by schema version 1 (a rowid tool log with a state
// index) is migrated in place: its history is kept and pending actions are
// still found.
func TestMigrateFromVersion1(t *testing.T) {
	path := filepath.Join(t.TempDir(), "v1.db")
	db, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{migrations[0], "PRAGMA user_version = 1",
		`INSERT INTO executions (runtime, id, code, status, created_at, updated_at) VALUES ('default', 'exec_1', 'x', 'paused', 1, 2)`,
		`INSERT INTO tool_log VALUES ('default', 'exec_1', 1, 'gh', 'list', '{}', '[1]', '', 0, 0, 'applied', 2)`,
		`INSERT INTO tool_log VALUES ('default', 'exec_1', 2, 'gh', 'create', '{"t":"x"}', NULL, '', 1, 0, 'pending', 2)`,
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(q, err)
		}
	}
	db.Close()
	s, err := Open(context.Background(), path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var v int
	if err := s.(*fileStore).db.QueryRow("PRAGMA user_version").Scan(&v); err != nil || v != schemaVersion {
		t.Fatalf("user_version %d, %v", v, err)
	}
	e, err := s.Execution(context.Background(), "default", "exec_1")
	if err != nil || len(e.Log) != 2 || string(e.Log[0].Result) != "[1]" || e.Log[1].State != store.EntryPending {
		t.Fatalf("migrated execution %+v, %v", e, err)
	}
	p, err := s.Pending(context.Background(), "default", "")
	if err != nil || len(p) != 1 || p[0].Seq != 2 || string(p[0].Args) != `{"t":"x"}` {
		t.Fatalf("pending %+v, %v", p, err)
	}
	var withoutRowid int
	if err := s.(*fileStore).db.QueryRow(`SELECT count(*) FROM sqlite_master WHERE name = 'tool_log' AND sql LIKE '%WITHOUT ROWID%'`).Scan(&withoutRowid); err != nil || withoutRowid != 1 {
		t.Fatalf("tool_log is not WITHOUT ROWID: %d %v", withoutRowid, err)
	}
}

// A journal written by schema version 4 (before configuration
// fingerprints) is migrated in place: its runs read back with none, and
// new runs keep theirs.
func TestMigrateFromVersion4(t *testing.T) {
	ctx := context.Background()
	s := journalAt(t, 4,
		`INSERT INTO executions (runtime, id, code, status, created_at, updated_at) VALUES ('default', 'exec_1', 'x', 'paused', 1, 2)`)
	if e, err := s.Execution(ctx, "default", "exec_1"); err != nil || e.Configuration != nil || e.Status != store.StatusPaused {
		t.Fatalf("migrated execution %+v, %v", e, err)
	}
	want := map[string]string{"api base URL": "http://127.0.0.1:1/v3"}
	if _, err := s.CreateExecution(ctx, "default", &store.Execution{ID: "exec_2", Code: "y", Status: store.StatusRunning, Configuration: want}, -1); err != nil {
		t.Fatal(err)
	}
	if e, err := s.Execution(ctx, "default", "exec_2"); err != nil || e.Configuration["api base URL"] != want["api base URL"] {
		t.Fatalf("new execution %+v, %v", e, err)
	}
}

// A journal written by schema version 5 (before calls' ends) is migrated
// in place: its entries read back with no end, and new ones keep theirs.
func TestMigrateFromVersion5(t *testing.T) {
	ctx := context.Background()
	s := journalAt(t, 5,
		`INSERT INTO executions (runtime, id, code, status, created_at, updated_at) VALUES ('default', 'exec_1', 'x', 'running', 1, 2)`,
		`INSERT INTO tool_log (runtime, execution_id, seq, connector, method, args, requires_approval, ephemeral, state, updated_at)
			VALUES ('default', 'exec_1', 1, 'svc', 'read', '{}', 0, 0, 'applied', 2)`)
	if ok, err := s.InsertEntry(ctx, "default", "exec_1", &store.Entry{Seq: 2, Connector: "svc", Method: "read", Args: []byte(`{}`), State: store.EntryError, End: "failed"}); err != nil || !ok {
		t.Fatalf("inserting an entry after the migration: %v, %v", ok, err)
	}
	e, err := s.Execution(ctx, "default", "exec_1")
	if err != nil || len(e.Log) != 2 || e.Log[0].End != "" || e.Log[0].State != store.EntryApplied || e.Log[1].End != "failed" {
		t.Fatalf("migrated execution %+v, %v", e, err)
	}
}

// A journal written by schema version 6 (before error names) is migrated
// in place: its failed entries read back with no name (a plain Error, as
// they were replayed before), and new ones keep theirs.
func TestMigrateFromVersion6(t *testing.T) {
	ctx := context.Background()
	s := journalAt(t, 6,
		`INSERT INTO executions (runtime, id, code, status, created_at, updated_at) VALUES ('default', 'exec_1', 'x', 'running', 1, 2)`,
		`INSERT INTO tool_log (runtime, execution_id, seq, connector, method, args, error, requires_approval, ephemeral, state, updated_at, call_end)
			VALUES ('default', 'exec_1', 1, 'svc', 'read', '{}', 'upstream is down', 0, 0, 'error', 2, 'failed')`)
	if ok, err := s.InsertEntry(ctx, "default", "exec_1", &store.Entry{Seq: 2, Connector: "svc", Method: "read", Args: []byte(`{}`),
		State: store.EntryError, Error: "HTTP 404 Not Found", ErrorName: "HTTPError", End: "failed"}); err != nil || !ok {
		t.Fatalf("inserting an entry after the migration: %v, %v", ok, err)
	}
	e, err := s.Execution(ctx, "default", "exec_1")
	if err != nil || len(e.Log) != 2 || e.Log[0].ErrorName != "" || e.Log[0].ErrorData != nil || e.Log[0].Error != "upstream is down" || e.Log[1].ErrorName != "HTTPError" {
		t.Fatalf("migrated execution %+v, %v", e, err)
	}
}

// A journal written by schema version 7 (error names, before their
// properties) is migrated in place: its entries keep their names and read
// back with no properties, and new ones keep theirs.
func TestMigrateFromVersion7(t *testing.T) {
	ctx := context.Background()
	s := journalAt(t, 7,
		`INSERT INTO executions (runtime, id, code, status, created_at, updated_at) VALUES ('default', 'exec_1', 'x', 'running', 1, 2)`,
		`INSERT INTO tool_log (runtime, execution_id, seq, connector, method, args, error, error_name, requires_approval, ephemeral, state, updated_at, call_end)
			VALUES ('default', 'exec_1', 1, 'svc', 'read', '{}', 'HTTP 404', 'HTTPError', 0, 0, 'error', 2, 'failed')`)
	if ok, err := s.InsertEntry(ctx, "default", "exec_1", &store.Entry{Seq: 2, Connector: "svc", Method: "read", Args: []byte(`{}`),
		State: store.EntryError, Error: "HTTP 404", ErrorName: "HTTPError", ErrorData: []byte(`{"status":404}`), End: "failed"}); err != nil || !ok {
		t.Fatalf("inserting an entry after the migration: %v, %v", ok, err)
	}
	e, err := s.Execution(ctx, "default", "exec_1")
	if err != nil || len(e.Log) != 2 || e.Log[0].ErrorName != "HTTPError" || e.Log[0].ErrorData != nil || string(e.Log[1].ErrorData) != `{"status":404}` {
		t.Fatalf("migrated execution %+v, %v", e, err)
	}
}

// journalAt is a journal file written by schema version v (the first v
// migrations) holding what rows does, opened by this package: migrated in
// place to the current version. It is closed with the test.
func journalAt(t *testing.T, v int, rows ...string) store.Store {
	t.Helper()
	path := filepath.Join(t.TempDir(), fmt.Sprintf("v%d.db", v))
	db, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range append(append(slices.Clone(migrations[:v]), fmt.Sprintf("PRAGMA user_version = %d", v)), rows...) {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(q, err)
		}
	}
	db.Close()
	s, err := Open(context.Background(), path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// A journal written by schema version 8 (before entries kept the upstream
// tool they named) is migrated in place: its entries read back with none,
// which durable does not compare, and new ones keep theirs.
func TestMigrateFromVersion8(t *testing.T) {
	path := filepath.Join(t.TempDir(), "v8.db")
	db, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range append(migrations[:8:8], "PRAGMA user_version = 8",
		`INSERT INTO executions (runtime, id, code, status, created_at, updated_at) VALUES ('default', 'exec_1', 'x', 'running', 1, 2)`,
		`INSERT INTO tool_log (runtime, execution_id, seq, connector, method, args, requires_approval, ephemeral, state, updated_at)
			VALUES ('default', 'exec_1', 1, 'files', 'get_file', '{}', 1, 0, 'pending', 2)`) {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(q, err)
		}
	}
	db.Close()
	ctx := context.Background()
	s, err := Open(ctx, path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if ok, err := s.InsertEntry(ctx, "default", "exec_1", &store.Entry{Seq: 2, Connector: "files", Method: "get_file", Args: []byte(`{}`),
		State: store.EntryExecuting, Upstream: "MCP tool get-file"}); err != nil || !ok {
		t.Fatalf("inserting an entry after the migration: %v, %v", ok, err)
	}
	e, err := s.Execution(ctx, "default", "exec_1")
	if err != nil || len(e.Log) != 2 || e.Log[0].Upstream != "" || e.Log[1].Upstream != "MCP tool get-file" {
		t.Fatalf("migrated execution %+v, %v", e, err)
	}
}
