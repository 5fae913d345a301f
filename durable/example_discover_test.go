package durable_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/codemode-go/codemode/client"
	"github.com/codemode-go/codemode/drivers/quickjs"
	"github.com/codemode-go/codemode/durable"
	"github.com/codemode-go/codemode/durable/sqlite"
)

type exampleRepo struct {
	Owner string `json:"owner"`
	Repo  string `json:"repo"`
}

type examplePull struct {
	Number int    `json:"number"`
	Title  string `json:"title"`
}

// exampleGitHub is a connector with two methods.
func exampleGitHub() durable.Connector {
	list, err := durable.FuncTool("list_pull_requests", "List the open pull requests of a repository.",
		func(ctx context.Context, in exampleRepo) ([]examplePull, error) {
			return []examplePull{{Number: 7, Title: "Fix the build of " + in.Repo}}, nil
		})
	if err != nil {
		log.Fatal(err)
	}
	create, err := durable.FuncTool("create_pull_request", "Create a pull request from a branch.",
		func(ctx context.Context, in exampleRepo) (examplePull, error) { return examplePull{Number: 8}, nil })
	if err != nil {
		log.Fatal(err)
	}
	create.RequiresApproval = true
	return durable.Connector{Name: "github", Tools: []durable.ConnectorTool{list, create}}
}

// A catalog answers search and describe without a journal or a runtime.
func ExampleNewCatalog() {
	cat, err := durable.NewCatalog([]durable.Connector{exampleGitHub()})
	if err != nil {
		log.Fatal(err)
	}
	found := cat.Search("create a pull request", nil)
	for _, r := range found.Results {
		fmt.Println(r.Path, r.RequiresApproval)
	}
	d, err := cat.Describe("github.create_pull_request", nil)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Print(d.Types)
	// Output:
	// github.create_pull_request true
	// github.list_pull_requests false
	// interface GithubTools {
	//   /**
	//    * Create a pull request from a branch.
	//    * @requiresApproval the execution pauses here until a person approves the call
	//    */
	//   create_pull_request(input: {
	//     owner: string;
	//     repo: string;
	//   }): Promise<{
	//     number: number;
	//     title: string;
	//   }>;
	// }
	//
	// declare const github: GithubTools;
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
	h, err := durable.New(store, rt, []durable.Connector{exampleGitHub()}, durable.Options{})
	if err != nil {
		log.Fatal(err)
	}

	first, err := h.Execute(ctx, `const prs = await github.list_pull_requests({ owner: "acme", repo: input?.repo ?? "site" });
prs.map((p) => p.title)`)
	if err != nil || first.Status != durable.OutputError { // input is only defined when codemode.run runs it
		log.Fatal(first, err)
	}
	first, err = h.Execute(ctx, `const repo = typeof input === "object" ? input.repo : "site";
(await github.list_pull_requests({ owner: "acme", repo })).map((p) => p.title)`)
	if err != nil || first.Status != durable.OutputCompleted {
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
	fmt.Println(out.Status, string(out.Result))
	// Output: completed {"snippet":"pr-titles","titles":["Fix the build of api"]}
}
