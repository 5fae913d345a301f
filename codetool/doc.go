// Package codetool is the one code tool of code mode: a model calls it
// with a TypeScript program ({"code": "…"}), and it answers with an
// [Answer] (completed with the program's value, paused awaiting a person's
// approval, or error), the same JSON whatever runs the program.
//
// A [Runner] runs programs: a *client.Client runs each as one execution,
// and a *durable.Handle as a recorded execution that may pause for
// approval (it is also an [Approver]). [New] makes the tool a Go agent
// program hands to a model; adapters in codetool/openaitool and
// codetool/anthropictool turn it into those SDKs' tool types, so that this
// package imports no model SDK. The MCP server (package mcpserver) serves
// the same tool over any Runner, with the same description (Tool.Description)
// and answers.
//
//	tool, err := codetool.New(cl, codetool.Options{Hints: map[string]string{"github": "issues and pull requests of acme/*"}})
//	…
//	answer, err := tool.Call(ctx, json.RawMessage(`{"code": "await github.list_issues({})"}`))
package codetool
