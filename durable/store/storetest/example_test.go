package storetest_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/codemode-go/codemode/durable/store"
	"github.com/codemode-go/codemode/durable/store/sqlite"
	"github.com/codemode-go/codemode/durable/store/storetest"
)

// A store's test file runs the suite against fresh, empty stores. (This
// example is compiled, not run: the suite needs a *testing.T.)
func ExampleRun() {
	// In mystore/store_test.go:
	testStore := func(t *testing.T) {
		storetest.Run(t, func(t *testing.T) store.Store {
			st, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "journal.db"), sqlite.Options{})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { st.Close() })
			return st
		})
	}
	_ = testStore
}
