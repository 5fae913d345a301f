package sqlite

import (
	"database/sql"

	"github.com/codemode-go/codemode/durable/store"
)

// SchemaVersion is schemaVersion, for the external tests.
const SchemaVersion = schemaVersion

// DB returns the database under a store Open returned, for tests that
// inspect or damage the file.
func DB(s store.Store) *sql.DB { return s.(*fileStore).db }
