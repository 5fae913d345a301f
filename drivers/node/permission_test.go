package node_test

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/codemode-go/codemode/client"
	"github.com/codemode-go/codemode/contract"
	"github.com/codemode-go/codemode/drivers/node"
)

// TestPermissionDeniesWhatIsNotAllowed: under Options.Permission a program
// that reads outside FSRead, writes outside FSWrite or starts a child
// process fails its own execution with ERR_ACCESS_DENIED, and the runtime
// keeps serving the allowed ones.
func TestPermissionDeniesWhatIsNotAllowed(t *testing.T) {
	driver(t)
	allowed, other := t.TempDir(), t.TempDir()
	for _, dir := range []string{allowed, other} {
		if err := os.WriteFile(filepath.Join(dir, "note.txt"), []byte("note"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	d := node.New(node.Options{Permission: &node.Permission{FSRead: []string{allowed + "/"}, FSWrite: []string{allowed + "/"}}})
	rt, err := client.NewRuntime(context.Background(), d)
	if err != nil {
		t.Fatal(err)
	}
	defer rt.Close()
	k, err := contract.New()
	if err != nil {
		t.Fatal(err)
	}
	cl := client.New(rt, k)
	read := func(dir string) string {
		return `import { readFileSync } from "node:fs";
export default async function ({ result }) { result.appendText(readFileSync(` + strconv.Quote(filepath.Join(dir, "note.txt")) + `, "utf8")); }`
	}
	write := func(dir string) string {
		return `import { writeFileSync } from "node:fs";
export default async function () { writeFileSync(` + strconv.Quote(filepath.Join(dir, "new.txt")) + `, "x"); }`
	}
	tests := []struct {
		name    string
		source  string
		content string // on success, the first content item; "" for none
		denied  string // on failure, in the error message
	}{
		{"read allowed", read(allowed), "note", ""},
		{"read elsewhere", read(other), "", "Use --allow-fs-read"},
		{"write allowed", write(allowed), "", ""},
		{"write elsewhere", write(other), "", "Use --allow-fs-write"},
		{"child process", `import { execFileSync } from "node:child_process";
export default async function () { execFileSync("true"); }`, "", "Use --allow-child-process"},
		{"the error's code", `import { readFileSync } from "node:fs";
export default async function ({ result }) {
  try { readFileSync(` + strconv.Quote(filepath.Join(other, "note.txt")) + `); } catch (e) { result.appendText(e.code); }
}`, "ERR_ACCESS_DENIED", ""},
		{"read allowed again", read(allowed), "note", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := cl.Run(context.Background(), tt.source, client.RunOptions{})
			if err != nil {
				t.Fatalf("Run: %v (the runtime must keep serving)", err)
			}
			if tt.denied != "" {
				if out.Kind != client.ProgramFailed || !strings.Contains(out.Error.Message, "Access to this API has been restricted") || !strings.Contains(out.Error.Message, tt.denied) {
					t.Fatalf("outcome %+v %+v, want a failure naming %q", out, out.Error, tt.denied)
				}
				return
			}
			if out.Kind != client.Success {
				t.Fatalf("%+v %+v", out, out.Error)
			}
			if got := ""; len(out.Content) > 0 {
				got = out.Content[0].Text
				if got != tt.content {
					t.Fatalf("content %q, want %q", got, tt.content)
				}
			} else if tt.content != "" {
				t.Fatalf("no content, want %q", tt.content)
			}
		})
	}
}
