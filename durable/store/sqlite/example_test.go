package sqlite_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/codemode-go/codemode/client"
	"github.com/codemode-go/codemode/contract"
	"github.com/codemode-go/codemode/drivers/quickjs"
	"github.com/codemode-go/codemode/durable"
	"github.com/codemode-go/codemode/durable/store/sqlite"
)

// A journal in one file: open it, give it to durable.New, and every
// execution is kept there (here read back through the store).
func ExampleOpen() {
	ctx := context.Background()
	dir, err := os.MkdirTemp("", "sqlite")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	st, err := sqlite.Open(ctx, filepath.Join(dir, "journal.db"), sqlite.Options{})
	if err != nil {
		log.Fatal(err)
	}
	defer st.Close()
	rt, err := client.NewRuntime(ctx, quickjs.New(quickjs.Options{}))
	if err != nil {
		log.Fatal(err)
	}
	defer rt.Close()
	c, err := contract.New()
	if err != nil {
		log.Fatal(err)
	}
	h, err := durable.New(st, rt, c, durable.Options{})
	if err != nil {
		log.Fatal(err)
	}
	if _, err := h.Execute(ctx, `6 * 7`); err != nil {
		log.Fatal(err)
	}
	list, err := st.Executions(ctx, h.Name(), 10)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(len(list), list[0].Status, string(list[0].Value))
	// Output: 1 completed 42
}
