// Package pgtest gives tests a PostgreSQL journal of their own: a fresh
// schema of the server $CODEMODE_TEST_POSTGRES names, dropped when the test
// ends.
package pgtest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"os"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
)

// Journal returns a postgres:// journal URL whose schema= is a fresh
// schema (codemode_test_ and 12 hex digits), and that schema's name. The
// schema is dropped after the test. Without $CODEMODE_TEST_POSTGRES the
// test is skipped, or failed when $CODEMODE_REQUIRE_POSTGRES is 1.
func Journal(t testing.TB) (url, schema string) {
	t.Helper()
	dsn := os.Getenv("CODEMODE_TEST_POSTGRES")
	if dsn == "" {
		if os.Getenv("CODEMODE_REQUIRE_POSTGRES") == "1" {
			t.Fatal("CODEMODE_TEST_POSTGRES is unset and CODEMODE_REQUIRE_POSTGRES=1")
		}
		t.Skip("CODEMODE_TEST_POSTGRES is unset")
	}
	var b [6]byte
	_, _ = rand.Read(b[:])
	schema = "codemode_test_" + hex.EncodeToString(b[:])
	t.Cleanup(func() {
		ctx := context.Background()
		conn, err := pgx.Connect(ctx, dsn)
		if err != nil {
			t.Logf("dropping schema %s: %v", schema, err)
			return
		}
		defer conn.Close(ctx)
		_, _ = conn.Exec(ctx, "DROP SCHEMA IF EXISTS "+schema+" CASCADE")
	})
	sep := "?"
	if strings.Contains(dsn, "?") {
		sep = "&"
	}
	return dsn + sep + "schema=" + schema, schema
}
