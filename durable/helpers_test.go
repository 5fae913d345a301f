package durable_test

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/codemode-go/codemode/contract"
	"github.com/codemode-go/codemode/durable"
	"github.com/codemode-go/codemode/durable/store"
)

// connectorTool is a tool of a test's namespace under construction: a
// typed Go tool (funcTool), or one of raw schemas and an Execute; its
// policy is set field by field, then build makes the contract.Tool.
type connectorTool struct {
	Name, Description         string
	InputSchema, OutputSchema json.RawMessage
	Execute                   func(ctx context.Context, args json.RawMessage) (json.RawMessage, error)
	RequiresApproval          bool
	ApprovalFor               func(args json.RawMessage) bool
	Replay                    contract.Replay
	Revert                    func(ctx context.Context, args, result json.RawMessage) error
	Idempotent, ReadOnly      bool

	typed *contract.Tool
}

// funcTool is a typed Go tool (contract.NewTool).
func funcTool[In, Out any](name, description string, fn func(ctx context.Context, input In) (Out, error)) (connectorTool, error) {
	t, err := contract.NewTool(name, description, fn)
	if err != nil {
		return connectorTool{}, err
	}
	return connectorTool{Name: name, Description: description, typed: t}, nil
}

// build makes the contract tool with its policy.
func (c connectorTool) build() (*contract.Tool, error) {
	t := c.typed
	if t == nil {
		var err error
		if t, err = contract.NewForeignTool(c.Name, c.Description, c.InputSchema, c.OutputSchema, c.Execute); err != nil {
			return nil, err
		}
	}
	if c.ReadOnly {
		yes := true
		t = t.WithAnnotations(contract.Annotations{ReadOnly: &yes})
	}
	return t.WithPolicy(contract.Policy{RequiresApproval: c.RequiresApproval, ApprovalFor: c.ApprovalFor, Replay: c.Replay, Revert: c.Revert, Idempotent: c.Idempotent})
}

// connector is a test's namespace, with the lifecycle hooks its handle
// gets (durable.Options.OnPassEnd and OnEnd).
type connector struct {
	Name             string
	Instructions     string
	Tools            []connectorTool
	OnPassEnd        func(ctx context.Context, id string, st store.Status) error
	DisposeExecution func(ctx context.Context, id string, st store.Status) error
}

// contractOf builds the contract of cs, one namespace each.
func contractOf(cs ...connector) (*contract.Contract, error) {
	var namespaces []contract.Namespace
	for _, c := range cs {
		ns := contract.Namespace{Name: c.Name, Instructions: c.Instructions}
		for _, t := range c.Tools {
			ct, err := t.build()
			if err != nil {
				return nil, fmt.Errorf("namespace %s: %w", c.Name, err)
			}
			ns.Tools = append(ns.Tools, ct)
		}
		namespaces = append(namespaces, ns)
	}
	return contract.NewNamespaced(namespaces...)
}

// withHooks sets opts' lifecycle hooks from the connectors that have some.
func withHooks(opts durable.Options, cs []connector) durable.Options {
	for _, c := range cs {
		if c.OnPassEnd != nil && opts.OnPassEnd == nil {
			opts.OnPassEnd = c.OnPassEnd
		}
		if c.DisposeExecution != nil && opts.OnEnd == nil {
			opts.OnEnd = c.DisposeExecution
		}
	}
	return opts
}
