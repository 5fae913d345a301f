package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzLoadDurableTools: any tools file loads or fails with an error naming
// the file; never a panic.
func FuzzLoadDurableTools(f *testing.F) {
	f.Add(`{"tools":[{"name":"a","description":"A.","inputSchema":{"type":"object"},"outputSchema":{},"command":["true"],"requiresApproval":true,"revert":["true"]}]}`)
	f.Add(`{"tools":[{"name":"a","description":"A.","inputSchema":{},"outputSchema":{},"command":["x"],"replay":"reexecute"}]}`)
	f.Add(`{"tools":[{"name":"a","command":[],"revert":[]}]}`)
	f.Add(`{"tools":[{"name":"a","unknown":1}]}`)
	f.Add(`[]`)
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, text string) {
		path := filepath.Join(dir, "tools.json")
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		c, err := loadDurableTools(path, 4)
		if err != nil {
			if !strings.Contains(err.Error(), path) {
				t.Fatalf("error %q does not name the file", err)
			}
			return
		}
		if c.Name != toolsConnector {
			t.Fatalf("connector %q", c.Name)
		}
		for _, tool := range c.Tools {
			if tool.Execute == nil {
				t.Fatalf("tool %s has no Execute", tool.Name)
			}
		}
	})
}

// A durable tools file's errors name the entry.
func TestLoadDurableToolsErrors(t *testing.T) {
	for text, want := range map[string]string{
		`{"tools":[{"name":"a","description":"A.","inputSchema":{},"outputSchema":{},"command":["x"],"revert":[]}]}`: "tools[0] (a): revert is empty",
		`{"tools":[{"name":"a","description":"A.","inputSchema":{},"outputSchema":{}}]}`:                             "tools[0] (a): command is missing",
		`{"tools":[{"name":"a","description":"A.","command":["x"]}]}`:                                                "inputSchema and outputSchema are required",
		`{"tools":[{"name":"a","approval":true}]}`:                                                                   `unknown field "approval"`,
	} {
		path := filepath.Join(t.TempDir(), "tools.json")
		os.WriteFile(path, []byte(text), 0o644)
		if _, err := loadDurableTools(path, 4); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", text, err, want)
		}
	}
}
