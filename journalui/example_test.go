package journalui_test

import (
	"context"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"

	"github.com/codemode-go/codemode/client"
	"github.com/codemode-go/codemode/contract"
	"github.com/codemode-go/codemode/drivers/quickjs"
	"github.com/codemode-go/codemode/durable"
	"github.com/codemode-go/codemode/durable/store/sqlite"
	"github.com/codemode-go/codemode/journalui"
)

// The page lists a journal's executions and lets a person approve, reject
// and roll them back; here a paused run shows on the list.
func ExampleNew() {
	ctx := context.Background()
	send, err := contract.NewTool("send", "Send a message.", func(ctx context.Context, in struct {
		Text string `json:"text"`
	}) (struct{}, error) {
		return struct{}{}, nil
	})
	if err != nil {
		log.Fatal(err)
	}
	if send, err = send.WithPolicy(contract.Policy{RequiresApproval: true}); err != nil {
		log.Fatal(err)
	}
	c, err := contract.New(send)
	if err != nil {
		log.Fatal(err)
	}
	dir, err := os.MkdirTemp("", "journalui")
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
	paused, err := h.Execute(ctx, `await codemode.send({ text: "hello" })`)
	if err != nil {
		log.Fatal(err)
	}

	page, err := journalui.New([]*durable.Handle{h}, journalui.Options{})
	if err != nil {
		log.Fatal(err)
	}
	defer page.Close()
	srv := httptest.NewServer(page) // a loopback client needs no token
	defer srv.Close()
	res, err := http.Get(srv.URL + "/")
	if err != nil {
		log.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	fmt.Println(res.StatusCode, paused.Status, strings.Contains(string(body), paused.ExecutionID))
	// Output: 200 paused true
}
