package durable

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/codemode-go/codemode/durable/store"
	"github.com/codemode-go/codemode/durable/store/postgres"
	"github.com/codemode-go/codemode/durable/store/sqlite"
)

// OpenStore opens the journal store dsn names, as the CLI's --journal flag
// takes it, and migrates its schema:
//
//   - postgres://… or postgresql://… is a PostgreSQL database
//     (durable/store/postgres), shared by every replica that opens it. The
//     URL takes pgx's connection and pool parameters (sslmode,
//     connect_timeout, pool_max_conns, …) and one of this package's:
//     schema=NAME, the schema that holds the journal's tables (created when
//     absent).
//   - sqlite:FILE, or any other string without a scheme (journal.db, a
//     path), is a SQLite file (durable/store/sqlite), created when absent.
//
// It returns an error for an empty string, an unknown scheme, or a store
// that cannot be opened (for PostgreSQL, one wrapping
// postgres.ErrUnavailable when the server cannot be reached). The caller
// closes the store.
func OpenStore(ctx context.Context, dsn string) (store.Store, error) {
	if strings.TrimSpace(dsn) == "" {
		return nil, errors.New("durable: the journal is empty: give a SQLite file (journal.db, sqlite:FILE) or a PostgreSQL URL (postgres://user@host/db)")
	}
	scheme, _, hasScheme := strings.Cut(dsn, "://")
	switch lower := strings.ToLower(scheme); {
	case hasScheme && (lower == "postgres" || lower == "postgresql"):
		return openPostgres(ctx, dsn)
	case strings.HasPrefix(strings.ToLower(dsn), "sqlite:"):
		path := dsn[len("sqlite:"):]
		if path == "" {
			return nil, fmt.Errorf("durable: %q names no file: use sqlite:FILE", dsn)
		}
		return sqlite.Open(ctx, path, sqlite.Options{})
	case hasScheme && !strings.ContainsAny(scheme, `/\`):
		return nil, fmt.Errorf("durable: unknown scheme %q in %q: use postgres://…, postgresql://…, sqlite:FILE or a file path", scheme, redact(dsn))
	}
	return sqlite.Open(ctx, dsn, sqlite.Options{})
}

// openPostgres opens a PostgreSQL store, taking schema=NAME out of the URL.
func openPostgres(ctx context.Context, dsn string) (store.Store, error) {
	u, err := url.Parse(dsn)
	if err != nil {
		return nil, fmt.Errorf("durable: the PostgreSQL URL %q does not parse: %w", redact(dsn), errors.Unwrap(err))
	}
	q := u.Query()
	schema := q.Get("schema")
	if q.Has("schema") {
		if schema == "" {
			return nil, errors.New("durable: schema= in the PostgreSQL URL is empty")
		}
		q.Del("schema")
		u.RawQuery = q.Encode()
	}
	return postgres.Open(ctx, u.String(), postgres.Options{Schema: schema})
}

// redact hides a URL's password in messages.
func redact(dsn string) string {
	if u, err := url.Parse(dsn); err == nil {
		return u.Redacted()
	}
	scheme, rest, ok := strings.Cut(dsn, "://")
	if !ok {
		return dsn
	}
	userinfo, host, ok := strings.Cut(rest, "@")
	if user, _, hasPassword := strings.Cut(userinfo, ":"); ok && hasPassword {
		return scheme + "://" + user + ":xxxxx@" + host
	}
	return dsn
}
