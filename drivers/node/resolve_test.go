package node_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codemode-go/codemode/client"
	"github.com/codemode-go/codemode/contract"
	"github.com/codemode-go/codemode/drivers/node"
)

// TestImportsResolveFromTheWorkingDirectory: a program imports node:
// built-ins and packages installed in the driver's working directory (an ES
// module package and a CommonJS one), and console output outside the
// scope's console is not captured.
func TestImportsResolveFromTheWorkingDirectory(t *testing.T) {
	driver(t) // skips without Node.js 24
	dir := t.TempDir()
	write := func(name, text string) {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("node_modules/greet/package.json", `{"name": "greet", "type": "module", "exports": "./index.js"}`)
	write("node_modules/greet/index.js", `export const hello = (name) => "hello " + name;`)
	write("node_modules/legacy/package.json", `{"name": "legacy", "main": "main.js"}`)
	write("node_modules/legacy/main.js", `module.exports = { twice: (n) => n * 2 };`)
	write("data.txt", "from the working directory")

	d := node.New(node.Options{Dir: dir})
	ctx := context.Background()
	rt, err := client.NewRuntime(ctx, d)
	if err != nil {
		t.Fatal(err)
	}
	defer rt.Close()
	c, err := contract.New()
	if err != nil {
		t.Fatal(err)
	}
	var captured strings.Builder
	out, err := client.New(rt, c).Run(ctx, `import { hello } from "greet";
import legacy from "legacy";
import { readFileSync } from "node:fs";
export default async function ({ result, console: scoped }) {
  console.log("global console: not captured");
  scoped.log("scope console: captured");
  result.appendText([hello("node"), legacy.twice(21), readFileSync("data.txt", "utf8")].join("; "));
}
`, client.RunOptions{OnTelemetry: func(e client.Event) {
		if e.Kind == client.EventProgramOutput {
			captured.WriteString(e.Text)
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	if out.Kind != client.Success || out.Content[0].Text != "hello node; 42; from the working directory" {
		t.Fatalf("outcome %+v", out)
	}
	if got := captured.String(); got != "scope console: captured\n" {
		t.Fatalf("captured output %q", got)
	}
}
