package postgres_test

import (
	"context"
	"log"
	"os"

	"github.com/codemode-go/codemode/durable/store/postgres"
)

// A journal in PostgreSQL, shared by every replica that opens it: each
// runs its own durable.Handle over the same store. (This example is
// compiled, not run: it needs a server.)
func ExampleOpen() {
	ctx := context.Background()
	st, err := postgres.Open(ctx, os.Getenv("JOURNAL_DSN"), postgres.Options{Schema: "codemode"})
	if err != nil {
		log.Fatal(err) // the server is down, the DSN is wrong, or the schema is newer than this program
	}
	defer st.Close()
	// durable.New(st, runtime, contract, durable.Options{}) on each replica.
}
