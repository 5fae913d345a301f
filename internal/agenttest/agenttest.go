// Package agenttest builds the real components the code tool's adapter
// tests and examples run on: a durable handle with an issue tracker
// connector, a SQLite journal in a directory the caller owns, and a QuickJS
// runtime.
package agenttest

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"

	"github.com/codemode-go/codemode/client"
	"github.com/codemode-go/codemode/contract"
	"github.com/codemode-go/codemode/drivers/quickjs"
	"github.com/codemode-go/codemode/durable"
	"github.com/codemode-go/codemode/durable/store"
	"github.com/codemode-go/codemode/durable/store/sqlite"
)

// ListInput is list_issues' input.
type ListInput struct {
	Repo string `json:"repo"`
}

// Issue is one issue of the tracker.
type Issue struct {
	Number int    `json:"number"`
	Title  string `json:"title"`
}

// CloseInput is close_issue's input.
type CloseInput struct {
	Number int `json:"number"`
}

// Closed is close_issue's output.
type Closed struct {
	Closed bool `json:"closed"`
}

// Issues are the tracker's issues, the same for every repository.
var Issues = []Issue{{Number: 1, Title: "Crash on start"}, {Number: 2, Title: "Typo in README"}, {Number: 3, Title: "Slow search"}}

// Env is a durable handle on a SQLite journal and a QuickJS runtime.
type Env struct {
	Handle *durable.Handle
	Store  store.Store
	rt     *client.Runtime
}

// Close stops the runtime and closes the journal.
func (e *Env) Close() error {
	return errors.Join(e.rt.Close(), e.Store.Close())
}

// New opens a journal at dir/journal.db and returns a handle whose one
// connector, issues, has list_issues (read-only) and close_issue (needs a
// person's approval).
func New(ctx context.Context, dir string) (*Env, error) {
	list, err := contract.NewTool("list_issues", "List the open issues of a repository.", func(ctx context.Context, in ListInput) ([]Issue, error) {
		return Issues, nil
	})
	if err != nil {
		return nil, err
	}
	closeIssue, err := contract.NewTool("close_issue", "Close an issue.", func(ctx context.Context, in CloseInput) (Closed, error) {
		return Closed{Closed: true}, nil
	})
	if err != nil {
		return nil, err
	}
	if closeIssue, err = closeIssue.WithPolicy(contract.Policy{RequiresApproval: true}); err != nil {
		return nil, err
	}
	c, err := contract.NewNamespaced(contract.Namespace{Name: "issues", Tools: []*contract.Tool{list, closeIssue}})
	if err != nil {
		return nil, err
	}
	st, err := sqlite.Open(ctx, filepath.Join(dir, "journal.db"), sqlite.Options{})
	if err != nil {
		return nil, fmt.Errorf("agenttest: %w", err)
	}
	rt, err := client.NewRuntime(ctx, quickjs.New(quickjs.Options{}))
	if err != nil {
		st.Close()
		return nil, fmt.Errorf("agenttest: %w", err)
	}
	h, err := durable.New(st, rt, c, durable.Options{})
	if err != nil {
		rt.Close()
		st.Close()
		return nil, fmt.Errorf("agenttest: %w", err)
	}
	return &Env{Handle: h, Store: st, rt: rt}, nil
}
