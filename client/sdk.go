package client

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/codemode-go/codemode/contract"
	"github.com/codemode-go/codemode/internal/discovery"
	"github.com/codemode-go/codemode/internal/typegen"
)

// The SDK is code mode's own members of the codemode namespace, beside the
// contract's tools (typegen declares them): search and describe are host
// tools the client answers from the contract's catalog, and step and run
// live in the program, made by the client's scope setup (sdkSetup): step
// runs its function, and run says where saved programs are kept. An
// Extension's Setup replaces that setup (and with it step and run), and a
// middleware may answer search and describe itself, as a runner that keeps
// saved programs does to add them.
const sdkNamespace = typegen.SDKNamespace

// sdkHostTools are the SDK members the host answers, as the runner's scope
// lists them.
var sdkHostTools = []string{"search", "describe"}

// sdk holds a contract's SDK host tools, made on first use.
type sdk struct {
	once     sync.Once
	catalog  *discovery.Catalog
	search   *contract.Tool
	describe *contract.Tool
	err      error
}

// tool returns the SDK host tool name of the codemode namespace, or nil.
func (s *sdk) tool(c *contract.Contract, name string) *contract.Tool {
	s.once.Do(func() { s.err = s.make(c) })
	if s.err != nil {
		return nil
	}
	switch name {
	case "search":
		return s.search
	case "describe":
		return s.describe
	}
	return nil
}

// make builds the tools over c's catalog.
func (s *sdk) make(c *contract.Contract) error {
	s.catalog = discovery.New(c)
	var err error
	s.search, err = contract.NewRawTool("search", "Searches the tools; at most 50 results, best first.",
		json.RawMessage(`{"type":"string"}`), json.RawMessage(`true`),
		func(_ context.Context, in json.RawMessage) (json.RawMessage, error) {
			var query string
			if err := json.Unmarshal(in, &query); err != nil {
				return nil, fmt.Errorf("codemode.search: the query must be a string")
			}
			return json.Marshal(s.catalog.Search(query, nil))
		})
	if err != nil {
		return err
	}
	s.describe, err = contract.NewRawTool("describe", "TypeScript declarations of a namespace or a namespace.tool.",
		json.RawMessage(`{"type":"string","minLength":1}`), json.RawMessage(`true`),
		func(_ context.Context, in json.RawMessage) (json.RawMessage, error) {
			var target string
			if err := json.Unmarshal(in, &target); err != nil {
				return nil, fmt.Errorf("codemode.describe: the target must be a string")
			}
			d, err := s.catalog.Describe(target, nil)
			if err != nil {
				return nil, fmt.Errorf("codemode.describe: %w", err)
			}
			return json.Marshal(d)
		})
	return err
}

// withSDK returns namespaces (a contract's, by scope property) with the
// SDK host tools in the codemode namespace, which it adds when absent.
func withSDK(namespaces map[string][]string) map[string][]string {
	tools := append([]string(nil), namespaces[sdkNamespace]...)
	namespaces[sdkNamespace] = append(tools, sdkHostTools...)
	return namespaces
}

// sdkSetup is the client's default scope setup: the codemode namespace of
// the program's scope, with step and run. step validates its arguments as
// a recording runner's does and runs the function; run throws a TypeError
// that says saved programs need a runner that keeps them. They are defined
// on the runner's own namespace (define, the setup's second argument), so
// a tool call goes through no wrapper; a runner without define gets a
// Proxy over the namespace instead.
const sdkSetup = `(s: any, define?: any): any => { const T = TypeError; ` +
	`const step = async (name: any, fn: any) => { ` +
	`if (typeof name !== "string" || name === "") throw new T("codemode.step: the name must be a non-empty string"); ` +
	`if (typeof fn !== "function") throw new T("codemode.step: the second argument must be a function"); ` +
	`return await fn(); }; ` +
	`const run = async (name: any) => { throw new T("codemode.run(" + JSON.stringify(name) + "): saved programs are kept in a journal, and this run has none"); }; ` +
	`if (typeof define === "function") { define("codemode", "step", step); define("codemode", "run", run); return s; } ` +
	`const sdk: any = { step, run }; ` +
	`return { ...s, codemode: new Proxy(s.codemode, { get: (t: any, p: any) => (p === "step" || p === "run") ? sdk[p] : t[p], ` +
	`has: (t: any, p: any) => p === "step" || p === "run" || p in t }) }; }`
