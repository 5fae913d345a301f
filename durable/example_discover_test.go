package durable_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/codemode-go/codemode/client"
	"github.com/codemode-go/codemode/codetool"
	"github.com/codemode-go/codemode/contract"
	"github.com/codemode-go/codemode/drivers/quickjs"
	"github.com/codemode-go/codemode/durable"
	"github.com/codemode-go/codemode/durable/store/sqlite"
)

type exampleRepo struct {
	Owner string `json:"owner"`
	Repo  string `json:"repo"`
}

type examplePull struct {
	Number int    `json:"number"`
	Title  string `json:"title"`
}

// exampleGitHub is a contract with two tools in the github namespace; the
// one that creates needs approval.
func exampleGitHub() *contract.Contract {
	list, err := contract.NewTool("list_pull_requests", "List the open pull requests of a repository.",
		func(ctx context.Context, in exampleRepo) ([]examplePull, error) {
			return []examplePull{{Number: 7, Title: "Fix the build of " + in.Repo}}, nil
		})
	if err != nil {
		log.Fatal(err)
	}
	create, err := contract.NewTool("create_pull_request", "Create a pull request from a branch.",
		func(ctx context.Context, in exampleRepo) (examplePull, error) { return examplePull{Number: 8}, nil })
	if err != nil {
		log.Fatal(err)
	}
	if create, err = create.WithPolicy(contract.Policy{RequiresApproval: true}); err != nil {
		log.Fatal(err)
	}
	c, err := contract.NewNamespaced(contract.Namespace{Name: "github", Tools: []*contract.Tool{list, create}})
	if err != nil {
		log.Fatal(err)
	}
	return c
}

// A completed run saved as a snippet is found by codemode.search and run
// by codemode.run from another program, in that program's execution.
func ExampleHandle_SaveSnippet() {
	ctx := context.Background()
	dir, err := os.MkdirTemp("", "snippets")
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
	h, err := durable.New(store, rt, exampleGitHub(), durable.Options{})
	if err != nil {
		log.Fatal(err)
	}

	first, err := h.Execute(ctx, `const prs = await github.list_pull_requests({ owner: "acme", repo: input?.repo ?? "site" });
prs.map((p) => p.title)`)
	if err != nil || first.Status != codetool.StatusError { // input is only defined when codemode.run runs it
		log.Fatal(first, err)
	}
	first, err = h.Execute(ctx, `const repo = typeof input === "object" ? input.repo : "site";
(await github.list_pull_requests({ owner: "acme", repo })).map((p) => p.title)`)
	if err != nil || first.Status != codetool.StatusCompleted {
		log.Fatal(first, err)
	}
	if _, err := h.SaveSnippet(ctx, "pr-titles", durable.SaveSnippetOptions{ExecutionID: first.ExecutionID,
		Description: "Titles of a repository's open pull requests.", InputSchema: json.RawMessage(`{"type":"object","properties":{"repo":{"type":"string"}}}`)}); err != nil {
		log.Fatal(err)
	}
	out, err := h.Execute(ctx, `const found = await codemode.search("pull request titles");
const titles = await codemode.run("pr-titles", { repo: "api" });
({ snippet: found.results.find((r) => r.kind === "snippet").path, titles })`)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(out.Status, string(out.Value))
	// Output: completed {"snippet":"pr-titles","titles":["Fix the build of api"]}
}
