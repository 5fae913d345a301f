package sqlite_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codemode-go/codemode/durable/store"
	"github.com/codemode-go/codemode/durable/store/sqlite"
	"github.com/codemode-go/codemode/durable/store/storetest"
)

func open(t *testing.T, path string) store.Store {
	t.Helper()
	s, err := sqlite.Open(context.Background(), path, sqlite.Options{})
	if err != nil {
		t.Fatalf("Open(%s): %v", path, err)
	}
	return s
}

func TestStoreContract(t *testing.T) {
	storetest.Run(t, func(t *testing.T) store.Store {
		return open(t, filepath.Join(t.TempDir(), "journal.db"))
	})
}

func TestJournalSurvivesReopen(t *testing.T) {
	path := filepath.Join(t.TempDir(), "journal.db")
	s := open(t, path)
	ctx := context.Background()
	if _, err := s.CreateExecution(ctx, "default", &store.Execution{ID: "exec_1", Code: "1", Status: store.StatusRunning, CreatedAt: 1, UpdatedAt: 1}, -1); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s = open(t, path)
	defer s.Close()
	e, err := s.Execution(ctx, "default", "exec_1")
	if err != nil || e.Code != "1" {
		t.Fatalf("after reopening: %+v, %v", e, err)
	}
}

func TestOpenRefusesNewerSchema(t *testing.T) {
	path := filepath.Join(t.TempDir(), "journal.db")
	s := open(t, path)
	if _, err := sqlite.DB(s).ExecContext(context.Background(), "PRAGMA user_version = 99"); err != nil {
		t.Fatal(err)
	}
	s.Close()
	_, err := sqlite.Open(context.Background(), path, sqlite.Options{})
	if err == nil || !strings.Contains(err.Error(), "schema version is 99, newer than this program's "+fmt.Sprint(sqlite.SchemaVersion)) {
		t.Fatalf("Open of a newer journal: %v", err)
	}
}

func TestOpenRefusesNonDatabase(t *testing.T) {
	path := filepath.Join(t.TempDir(), "notes.txt")
	if err := os.WriteFile(path, []byte(strings.Repeat("not a database\n", 200)), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := sqlite.Open(context.Background(), path, sqlite.Options{}); err == nil {
		t.Fatal("Open of a text file succeeded")
	}
}

func TestOpenUsesWAL(t *testing.T) {
	s := open(t, filepath.Join(t.TempDir(), "journal.db"))
	defer s.Close()
	var mode string
	if err := sqlite.DB(s).QueryRowContext(context.Background(), "PRAGMA journal_mode").Scan(&mode); err != nil {
		t.Fatal(err)
	}
	if mode != "wal" {
		t.Fatalf("journal_mode %q, want wal", mode)
	}
}

// Pruning returns the pruned executions' pages to the file system: the
// database shrinks (PRAGMA page_count), it does not only keep them free.
func TestPruneReturnsSpace(t *testing.T) {
	s := open(t, filepath.Join(t.TempDir(), "journal.db"))
	defer s.Close()
	ctx := context.Background()
	pages := func() int {
		t.Helper()
		var n int
		if err := sqlite.DB(s).QueryRowContext(ctx, "PRAGMA page_count").Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	code := strings.Repeat("x", 64<<10)
	for i := range 40 {
		e := &store.Execution{ID: fmt.Sprintf("exec_%02d", i), Code: code, Status: store.StatusCompleted, CreatedAt: int64(i), UpdatedAt: int64(i)}
		if _, err := s.CreateExecution(ctx, "default", e, -1); err != nil {
			t.Fatal(err)
		}
	}
	before := pages()
	if n, err := s.PruneExecutions(ctx, "default", 2); err != nil || n != 38 {
		t.Fatalf("PruneExecutions = %d, %v", n, err)
	}
	if after := pages(); after > before/4 {
		t.Fatalf("%d pages before pruning 38 of 40 executions, %d after: the space was not returned", before, after)
	}
}
