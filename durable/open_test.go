package durable_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/codemode-go/codemode/durable"
	"github.com/codemode-go/codemode/durable/store"
	"github.com/codemode-go/codemode/durable/store/postgres"
	"github.com/codemode-go/codemode/internal/pgtest"
)

func TestOpenStoreSQLite(t *testing.T) {
	dir := t.TempDir()
	for _, dsn := range []string{
		filepath.Join(dir, "journal.db"),
		"sqlite:" + filepath.Join(dir, "other.db"),
		"SQLite:" + filepath.Join(dir, "third"),
		"relative.db",
	} {
		t.Run(dsn, func(t *testing.T) {
			t.Chdir(dir)
			st, err := durable.OpenStore(context.Background(), dsn)
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			if got := fmt.Sprintf("%T", st); !strings.HasPrefix(got, "*sqlite.") {
				t.Fatalf("OpenStore(%q) = %s, want the sqlite package's store", dsn, got)
			}
			roundTrip(t, st)
		})
	}
}

func roundTrip(t *testing.T, st store.Store) {
	t.Helper()
	ctx := context.Background()
	if _, err := st.CreateExecution(ctx, "default", &store.Execution{ID: "exec_1", Code: "1", Status: store.StatusRunning, CreatedAt: 1, UpdatedAt: 1}, -1); err != nil {
		t.Fatal(err)
	}
	if e, err := st.Execution(ctx, "default", "exec_1"); err != nil || e.Code != "1" {
		t.Fatalf("read back %+v, %v", e, err)
	}
}

func TestOpenStoreRefuses(t *testing.T) {
	for dsn, want := range map[string]string{
		"":                               "the journal is empty",
		"sqlite:":                        `"sqlite:" names no file`,
		"mysql://root:hunter2@db/x":      `unknown scheme "mysql"`,
		"postgres://u:hunter2@%zz/x":     "does not parse",
		"postgres://localhost/x?schema=": "schema= in the PostgreSQL URL is empty",
	} {
		_, err := durable.OpenStore(context.Background(), dsn)
		if err == nil || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "hunter2") {
			t.Errorf("OpenStore(%q) = %v, want an error containing %q without the password", dsn, err, want)
		}
	}
}

func TestOpenStoreUnreachablePostgres(t *testing.T) {
	_, err := durable.OpenStore(context.Background(), "postgresql://codemode@127.0.0.1:1/journal?connect_timeout=2")
	if !errors.Is(err, postgres.ErrUnavailable) {
		t.Fatalf("OpenStore of a closed port: %v, want postgres.ErrUnavailable", err)
	}
}

// With CODEMODE_TEST_POSTGRES (a DSN; see durable/store/postgres), a postgres://
// URL opens the PostgreSQL store, in the schema its schema= names.
func TestOpenStorePostgres(t *testing.T) {
	journal, schema := pgtest.Journal(t)
	st, err := durable.OpenStore(context.Background(), journal)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if got := fmt.Sprintf("%T", st); !strings.HasPrefix(got, "*postgres.") {
		t.Fatalf("OpenStore = %s, want the postgres package's store", got)
	}
	roundTrip(t, st)
	conn, err := pgx.Connect(context.Background(), os.Getenv("CODEMODE_TEST_POSTGRES"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	var n int
	if err := conn.QueryRow(context.Background(), "SELECT count(*) FROM "+schema+".codemode_executions").Scan(&n); err != nil || n != 1 {
		t.Fatalf("executions in schema %s: %d, %v", schema, n, err)
	}
}
