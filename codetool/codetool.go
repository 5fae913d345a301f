// Package codetool is the code tool as a Go agent program hands it to a
// model: a descriptor (name, description, input JSON Schema {code}) and a
// Call that runs the model's arguments and returns the answer as JSON. A
// durable handle (durable.Handle.Tool) and a plain client
// (client.Client.Tool) make one; adapters in codetool/openaitool and
// codetool/anthropictool turn it into the OpenAI and Anthropic Go SDKs'
// tool types, so that this package and its makers import no model SDK.
//
//	tool, err := handle.Tool(codetool.Options{ConnectorHints: map[string]string{"github": "issues and pull requests of acme/*"}})
//	…
//	answer, err := tool.Call(ctx, json.RawMessage(`{"code": "await github.list_issues({})"}`))
package codetool

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
)

// Name is the code tool's name, as MCP servers of this module also call it.
const Name = "code"

// InputSchema is the JSON Schema of the code tool's arguments: an object
// with one required, non-empty string property, code.
const InputSchema = `{"type":"object","properties":{"code":{"type":"string","minLength":1,"description":"The TypeScript program: an async arrow function, or statements with top-level await whose last expression is the answer."}},"required":["code"],"additionalProperties":false}`

// Options shape the descriptor, as the runtime's tool options do
// (description, connectorHints).
type Options struct {
	// Description, when not empty, replaces the generated description
	// whole; ConnectorHints are then not used.
	Description string
	// ConnectorHints add one line each, under the namespace named by the
	// key, to the generated description: what the connector is for, as the
	// agent should read it ("issues and pull requests of acme/*"). A key
	// that names no namespace of the catalogue is an error; a hint is one
	// line (no newline).
	ConnectorHints map[string]string
}

// CheckHints returns an error for a ConnectorHints key that names none of
// namespaces, or a hint that holds a newline (a hint is one line).
func (o Options) CheckHints(namespaces []string) error {
	known := map[string]bool{}
	for _, n := range namespaces {
		known[n] = true
	}
	keys := make([]string, 0, len(o.ConnectorHints))
	for k := range o.ConnectorHints {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if !known[k] {
			return fmt.Errorf("codetool: ConnectorHints[%q]: no namespace is named %s (namespaces: %s)", k, k, strings.Join(namespaces, ", "))
		}
		if strings.ContainsAny(o.ConnectorHints[k], "\r\n") {
			return fmt.Errorf("codetool: ConnectorHints[%q]: a hint is one line", k)
		}
	}
	return nil
}

// Descriptor is the code tool as a model sees it.
type Descriptor struct {
	Name        string          // Name ("code")
	Description string          // what the tool does, the namespaces and how to write a program
	InputSchema json.RawMessage // InputSchema
}

// Tool is a descriptor and the function that answers a call of it. It is
// safe for concurrent use when its maker's runner is (a durable handle and
// a client are).
type Tool struct {
	Descriptor
	run func(ctx context.Context, code string) (json.RawMessage, error)
}

// New returns a tool with descriptor d whose Call runs the code of valid
// arguments with run. Makers (durable.Handle.Tool, client.Client.Tool)
// call it; run returns the answer as JSON, and an error only when no
// answer could be made (a journal that failed, a runtime that closed), not
// for a program that failed, which is an answer.
func New(d Descriptor, run func(ctx context.Context, code string) (json.RawMessage, error)) *Tool {
	return &Tool{Descriptor: d, run: run}
}

// ArgumentsError is arguments that are not the code tool's input: not a
// JSON object, code missing, not a string or empty, or a property other
// than code. Adapters answer it to the model as an error result so that it
// can correct the call.
type ArgumentsError struct {
	Reason string // what is wrong, e.g. `"code" is missing`
}

// Error says what is wrong and what the tool takes.
func (e *ArgumentsError) Error() string {
	return fmt.Sprintf(`codetool: bad arguments: %s; the code tool takes {"code": "<TypeScript program>"}`, e.Reason)
}

// Call decodes argumentsJSON ({"code": "…"}), runs the code and returns the
// answer as JSON (for a durable handle the execution's output, for a plain
// client the outcome). It returns an *ArgumentsError for arguments that are
// not the tool's input (nothing runs), and the maker's error when no answer
// could be made; a program that fails is an answer, not an error.
func (t *Tool) Call(ctx context.Context, argumentsJSON json.RawMessage) (json.RawMessage, error) {
	code, err := Code(argumentsJSON)
	if err != nil {
		return nil, err
	}
	return t.run(ctx, code)
}

// Code returns the program in the code tool's arguments, or an
// *ArgumentsError naming what is wrong with them.
func Code(argumentsJSON json.RawMessage) (string, error) {
	dec := json.NewDecoder(bytes.NewReader(argumentsJSON))
	dec.DisallowUnknownFields()
	var in struct {
		Code json.RawMessage `json:"code"`
	}
	if err := dec.Decode(&in); err != nil {
		return "", &ArgumentsError{Reason: "not a JSON object with only the property code (" + err.Error() + ")"}
	}
	if dec.More() {
		return "", &ArgumentsError{Reason: "text after the JSON object"}
	}
	if in.Code == nil {
		return "", &ArgumentsError{Reason: `"code" is missing`}
	}
	var code string
	if err := json.Unmarshal(in.Code, &code); err != nil || string(in.Code) == "null" {
		return "", &ArgumentsError{Reason: `"code" is not a string`}
	}
	if strings.TrimSpace(code) == "" {
		return "", &ArgumentsError{Reason: `"code" is empty`}
	}
	return code, nil
}

// Catalogue is what a generated description is made from.
type Catalogue struct {
	// Namespaces are the scope names a program calls tools through
	// (connectors, for a durable handle), in order.
	Namespaces []string
	// Declarations are the TypeScript declarations of the namespaces.
	Declarations string
	// Durable selects the durable runtime's text: executions are
	// journalled, may pause for approval, and codemode.step exists.
	Durable bool
}

// Description returns the code tool's description for catalogue c: the
// options' Description when given, else a generated one that lists the
// namespaces with their hints, says how to write a program and what the
// answer looks like, and ends with the declarations. It returns an error
// for a hint whose key names no namespace of c, or that holds a newline.
//
// A plain client's tool (client.Client.Tool) is described by it; a durable
// handle's uses durable.Handle.ToolDescription, which knows discovery
// (codemode.search and describe) and checks hints with Options.CheckHints.
func Description(c Catalogue, opts Options) (string, error) {
	if err := opts.CheckHints(c.Namespaces); err != nil {
		return "", err
	}
	if opts.Description != "" {
		return opts.Description, nil
	}
	var b strings.Builder
	if c.Durable {
		b.WriteString("Run a TypeScript program that calls the connectors declared below, as one durable execution: every connector call is recorded in a journal, with its arguments and result.\n\n")
	} else {
		b.WriteString("Run a TypeScript program that calls the tools declared below, and answer with its result. Use it to do in one step what would otherwise take many tool calls: call several tools, loop, filter and combine their results, and return only what matters.\n\n")
	}
	b.WriteString("Namespaces in scope:\n")
	for _, n := range c.Namespaces {
		b.WriteString("- " + n)
		if h := strings.TrimSpace(opts.ConnectorHints[n]); h != "" {
			b.WriteString(": " + h)
		}
		b.WriteByte('\n')
	}
	b.WriteString("\nWrite an async arrow function, or plain statements with top-level await whose value (or a returned value) is the answer; console is in scope too.")
	if c.Durable {
		b.WriteString(" Use codemode.step(name, fn) around non-deterministic work that is not a connector call.\n\n")
		b.WriteString(`Some actions need a person's approval. When the program reaches one, the execution pauses and the answer has "status": "paused" with the pending actions: nothing more runs until a person approves or rejects them outside this conversation. Do not call this tool again to retry a paused action; tell the user what waits for approval, with the executionId.` + "\n\n")
		b.WriteString(`The answer is JSON: {"status": "completed", "executionId", "result", "logs"?} | {"status": "paused", "executionId", "pending": [{"seq", "connector", "method", "args"}]} | {"status": "error", "executionId", "error", "logs"?}.` + "\n\n")
	} else {
		b.WriteString("\n\n")
		b.WriteString(`The answer is JSON: {"kind": "success", "value"?, "content"?} | {"kind": "program-failed", "error": {"name", "message", "stack"}}.` + "\n\n")
	}
	b.WriteString("Declarations:\n```ts\n" + strings.TrimRight(c.Declarations, "\n") + "\n```")
	return b.String(), nil
}

// Failed reports whether an answer of Call is a failure the model should
// see flagged as an error result: a durable output whose status is "error"
// or a plain outcome whose kind is "program-failed". Adapters set their
// SDK's error flag from it (a paused execution is not a failure).
func Failed(answer json.RawMessage) bool {
	var a struct {
		Status string `json:"status"`
		Kind   string `json:"kind"`
	}
	if json.Unmarshal(answer, &a) != nil {
		return false
	}
	return a.Status == "error" || a.Kind == "program-failed"
}
