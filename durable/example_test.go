package durable_test

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

type exampleTransfer struct {
	To     string `json:"to"`
	Amount int    `json:"amount"`
}

type exampleReceipt struct {
	ID string `json:"id"`
}

// The main loop: a program runs as a recorded execution; it pauses where a
// tool needs a person's approval, and nothing after that call runs; the
// person approves and the execution goes on from the journal (the earlier
// calls are not made again); a rollback then undoes its applied calls that
// have a revert.
func Example() {
	ctx := context.Background()
	balance := 100
	transfer, err := contract.NewTool("transfer", "Send money to an account.", func(ctx context.Context, in exampleTransfer) (exampleReceipt, error) {
		balance -= in.Amount
		return exampleReceipt{ID: "tx-1"}, nil
	})
	if err != nil {
		log.Fatal(err)
	}
	transfer, err = transfer.WithPolicy(contract.Policy{RequiresApproval: true,
		Revert: contract.TypedRevert(func(ctx context.Context, in exampleTransfer, _ exampleReceipt) error {
			balance += in.Amount
			return nil
		})})
	if err != nil {
		log.Fatal(err)
	}
	getBalance, err := contract.NewTool("balance", "The account's balance.", func(ctx context.Context, _ struct{}) (int, error) { return balance, nil })
	if err != nil {
		log.Fatal(err)
	}
	c, err := contract.NewNamespaced(contract.Namespace{Name: "bank", Tools: []*contract.Tool{getBalance, transfer}})
	if err != nil {
		log.Fatal(err)
	}

	dir, err := os.MkdirTemp("", "journal")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	store, err := sqlite.Open(ctx, filepath.Join(dir, "journal.db"), sqlite.Options{})
	if err != nil {
		log.Fatal(err)
	}
	defer store.Close()
	rt, err := client.NewRuntime(ctx, quickjs.New(quickjs.Options{}))
	if err != nil {
		log.Fatal(err)
	}
	defer rt.Close()
	h, err := durable.New(store, rt, c, durable.Options{})
	if err != nil {
		log.Fatal(err)
	}

	paused, err := h.Execute(ctx, `const before = await bank.balance();
const receipt = await bank.transfer({ to: "alice", amount: 30 });
({ before, receipt: receipt.id, after: await bank.balance() })`)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(paused.Status, paused.Pending[0].Connector+"."+paused.Pending[0].Method, balance)

	done, err := h.Approve(ctx, paused.ExecutionID)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(done.Status, string(done.Value))

	if err := h.Rollback(ctx, paused.ExecutionID); err != nil {
		log.Fatal(err)
	}
	fmt.Println("rolled back:", balance)
	// Output:
	// paused bank.transfer 100
	// completed {"before":100,"receipt":"tx-1","after":70}
	// rolled back: 100
}
