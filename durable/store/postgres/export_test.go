package postgres

import (
	"github.com/codemode-go/codemode/durable/store"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Pool returns the connection pool under a store Open returned, for tests
// that inspect or damage the database.
func Pool(s store.Store) *pgxpool.Pool { return s.(*pgStore).pool }

// SchemaVersion is schemaVersion, for the external tests.
const SchemaVersion = schemaVersion
