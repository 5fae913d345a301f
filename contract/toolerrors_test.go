package contract_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/codemode-go/codemode/contract"
)

// foreignTool is a foreign tool named name (as an MCP or OpenAPI connector
// makes one), declaring errs.
func foreignTool(t *testing.T, name string, errs ...contract.ToolError) *contract.Tool {
	t.Helper()
	tool, err := contract.NewForeignTool(name, "A foreign tool.", json.RawMessage(`{"type":"object"}`), nil,
		func(context.Context, json.RawMessage) (json.RawMessage, error) { return json.RawMessage(`null`), nil })
	if err != nil {
		t.Fatal(err)
	}
	if tool, err = tool.WithErrors(errs...); err != nil {
		t.Fatal(err)
	}
	return tool
}

// strictTool is a strict tool named name declaring errs.
func strictTool(t *testing.T, name string, errs ...contract.ToolError) *contract.Tool {
	t.Helper()
	tool, err := contract.NewRawTool(name, "A strict tool.", json.RawMessage(`{"type":"object","properties":{},"additionalProperties":false}`), json.RawMessage(`{"type":"null"}`),
		func(context.Context, json.RawMessage) (json.RawMessage, error) { return json.RawMessage(`null`), nil })
	if err != nil {
		t.Fatal(err)
	}
	if tool, err = tool.WithErrors(errs...); err != nil {
		t.Fatal(err)
	}
	return tool
}

// TestToolsDeclaringOneErrorUnlikeFailNew: two tools that declare one
// error unlike fail New, whether the tools are strict or foreign; New
// printed only the strict tools to check, so a foreign tool's error let it
// succeed with declarations that could not be printed: TypeDefinitions
// was empty.
func TestToolsDeclaringOneErrorUnlikeFailNew(t *testing.T) {
	gone := contract.ToolError{Name: "NotFoundError", Description: "Gone."}
	missing := contract.ToolError{Name: "NotFoundError", Description: "Never there."}
	cases := []struct {
		name string
		a, b func(*testing.T, string, ...contract.ToolError) *contract.Tool
	}{
		{"strict and strict", strictTool, strictTool},
		{"strict and foreign", strictTool, foreignTool},
		{"foreign and strict", foreignTool, strictTool},
		{"foreign and foreign", foreignTool, foreignTool},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := contract.New(c.a(t, "a", gone), c.b(t, "b", missing))
			if err == nil {
				t.Fatalf("New succeeded; TypeDefinitions:\n%q", got.TypeDefinitions())
			}
			if !strings.Contains(err.Error(), "NotFoundError") {
				t.Errorf("New: %v, want an error naming NotFoundError", err)
			}
		})
	}
}
