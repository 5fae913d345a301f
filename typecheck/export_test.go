package typecheck

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
)

// Completions returns the labels the checker's language server completes
// at (line, character), 0-based, of source checked against declarations.
// Tests use it to list what the declarations say exists, for example every
// global after "globalThis.".
func (c *Checker) Completions(ctx context.Context, declarations []File, source string, line, character int) ([]string, error) {
	if _, err := c.Check(ctx, declarations, source); err != nil {
		return nil, err
	}
	c.turn <- struct{}{}
	defer func() { <-c.turn }()
	p, err := c.project(declarations)
	if err != nil {
		return nil, err
	}
	raw, err := c.srv.call(ctx, "textDocument/completion", map[string]any{
		"textDocument": map[string]any{"uri": fileURI(filepath.Join(p.dir, "agent.ts"))},
		"position":     map[string]any{"line": line, "character": character},
	})
	if err != nil {
		return nil, err
	}
	var list struct {
		Items []struct {
			Label string `json:"label"`
		} `json:"items"`
	}
	if err := json.Unmarshal(raw, &list); err != nil {
		return nil, fmt.Errorf("completion: %w: %s", err, raw)
	}
	var labels []string
	for _, it := range list.Items {
		labels = append(labels, it.Label)
	}
	return labels, nil
}

// HoldTurn takes the checker's turn, as a running check does, until
// release is called.
func (c *Checker) HoldTurn() (release func()) {
	c.turn <- struct{}{}
	return func() { <-c.turn }
}
