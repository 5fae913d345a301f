package mcpconnector_test

import (
	"bytes"
	"context"
	"log/slog"
	"os"
	"strconv"
	"sync"
	"testing"

	"github.com/codemode-go/codemode/connector/mcpconnector"
	"github.com/codemode-go/codemode/contract"
	"github.com/codemode-go/codemode/internal/mcptest"
)

func TestMain(m *testing.M) {
	mcptest.Play() // the test servers of internal/mcptest run as this binary
	os.Exit(m.Run())
}

func itoa(n int) string { return strconv.Itoa(n) }

func atoi(s string) int { n, _ := strconv.Atoi(s); return n }

// connectUp connects the servers and fails the test unless every one is
// up; the set is closed when the test ends.
func connectUp(t testing.TB, opts mcpconnector.Options, servers ...mcpconnector.Server) *mcpconnector.Set {
	t.Helper()
	set, err := mcpconnector.Connect(context.Background(), servers, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { set.Close() })
	if down := set.Down(); len(down) > 0 {
		t.Fatalf("servers down: %v", down)
	}
	return set
}

// contractOf is the contract of the set's namespaces.
func contractOf(t testing.TB, set *mcpconnector.Set) *contract.Contract {
	t.Helper()
	c, err := contract.NewNamespaced(set.Namespaces()...)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// logs is a logger that keeps what it is given, for the warnings.
type logs struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *logs) logger() *slog.Logger {
	return slog.New(slog.NewTextHandler(lockedWriter{l}, &slog.HandlerOptions{Level: slog.LevelInfo}))
}

func (l *logs) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

type lockedWriter struct{ l *logs }

func (w lockedWriter) Write(p []byte) (int, error) {
	w.l.mu.Lock()
	defer w.l.mu.Unlock()
	return w.l.buf.Write(p)
}
