package node_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/codemode-go/codemode/client"
	"github.com/codemode-go/codemode/contract"
	"github.com/codemode-go/codemode/drivers/node"
	"github.com/codemode-go/codemode/drivers/quickjs"
	"github.com/codemode-go/codemode/typecheck"
)

// checker returns a TypeScript checker, skipping the test when none is
// installed, unless CODEMODE_REQUIRE_TSC is set (scripts/test sets it).
func checker(t testing.TB) *typecheck.Checker {
	t.Helper()
	c, err := typecheck.New(typecheck.Options{})
	if errors.Is(err, typecheck.ErrNotInstalled) && os.Getenv("CODEMODE_REQUIRE_TSC") == "" {
		t.Skip(err)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// nodeProgram reads the file at path with node:fs and reports
// process.version.
func nodeProgram(path string) string {
	return `import { readFileSync } from "node:fs";
export default async function ({ result }: AgentProgramScope) {
  const text: string = readFileSync(` + strconv.Quote(path) + `, "utf8");
  result.appendText(text + " " + process.version);
}
`
}

// TestNodeProgramValidatesAndRunsOnNode: a program using node:fs and
// process is valid against the Node driver's declarations (@types/node)
// and runs on the Node driver.
func TestNodeProgramValidatesAndRunsOnNode(t *testing.T) {
	d := driver(t)
	chk := checker(t)
	path := filepath.Join(t.TempDir(), "greeting.txt")
	if err := os.WriteFile(path, []byte("hello"), 0o644); err != nil {
		t.Fatal(err)
	}
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
	res, err := cl.Validate(context.Background(), chk, nodeProgram(path))
	if err != nil {
		t.Fatal(err)
	}
	if !res.Valid {
		t.Fatalf("a Node program is invalid against @types/node:\n%s", res.Report)
	}
	out, err := cl.Run(context.Background(), nodeProgram(path), client.RunOptions{})
	if err != nil || out.Kind != client.Success {
		t.Fatalf("%+v %v", out, err)
	}
	if got := out.Content[0].Text; !strings.HasPrefix(got, "hello v24.") {
		t.Fatalf("content %q, want hello v24.…", got)
	}
}

// TestNodeDeclarationsRejectWhatNodeLacks: the Node declarations reject
// misspelt Node APIs, and the QuickJS declarations reject the Node program.
func TestNodeDeclarationsRejectWhatNodeLacks(t *testing.T) {
	chk := checker(t)
	nodeFiles, err := driver(t).TypeDefinitionFiles(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	quickjsFiles, err := quickjs.New(quickjs.Options{}).TypeDefinitionFiles(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	k, err := contract.New()
	if err != nil {
		t.Fatal(err)
	}
	good := nodeProgram("/etc/hostname")
	tests := []struct {
		name   string
		driver string // "node" or "quickjs"
		source string
		code   int
		want   string // in the first diagnostic's message
	}{
		{"node module on QuickJS", "quickjs", good, 2591, "'node:fs'"},
		{"process on QuickJS", "quickjs", strings.Replace(good, `import { readFileSync } from "node:fs";`, `const readFileSync = (p: string, e: string) => p + e;`, 1), 2591, "'process'"},
		{"misspelt export", "node", strings.Replace(good, "{ readFileSync }", "{ readFileSynk }", 1), 2724, "readFileSynk"},
		{"misspelt member", "node", strings.Replace(good, "process.version", "process.verson", 1), 2551, "verson"},
		{"wrong argument count", "node", strings.Replace(good, "process.version", "process.uptime(1)", 1), 2554, "Expected 0 arguments"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			files := []typecheck.File{{Name: "codemode.d.ts", Text: k.TypeDefinitions(), Checker: k.CheckerDeclarations()}}
			rtFiles := nodeFiles
			if tt.driver == "quickjs" {
				rtFiles = quickjsFiles
			}
			for _, f := range rtFiles {
				files = append(files, typecheck.File{Name: f.Name, Text: f.Text})
			}
			res, err := chk.Check(context.Background(), files, tt.source)
			if err != nil {
				t.Fatal(err)
			}
			if res.Valid {
				t.Fatalf("valid, want TS%d", tt.code)
			}
			d := res.Diagnostics[0]
			if d.Code != tt.code || !strings.Contains(d.Message, tt.want) {
				t.Fatalf("first diagnostic TS%d %q, want TS%d containing %q\n%s", d.Code, d.Message, tt.code, tt.want, res.Report)
			}
		})
	}
}

// TestTypeDefinitionFilesSayHowToInstall: without @types/node the driver's
// TypeDefinitionFiles fails with ErrTypesNotInstalled, whose message names
// the npm command; a directory that is not @types/node is refused.
func TestTypeDefinitionFilesSayHowToInstall(t *testing.T) {
	empty := t.TempDir()
	_, err := node.New(node.Options{Dir: empty}).TypeDefinitionFiles(context.Background())
	if !errors.Is(err, node.ErrTypesNotInstalled) || !strings.Contains(err.Error(), "npm install --prefix .tools @types/node@"+node.TypesVersion) {
		t.Fatalf("err = %v, want ErrTypesNotInstalled with the npm command", err)
	}
	if err := os.WriteFile(filepath.Join(empty, "package.json"), []byte(`{"name":"left-pad","version":"1.0.0"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := node.New(node.Options{TypesDir: empty}).TypeDefinitionFiles(context.Background()); err == nil || !strings.Contains(err.Error(), "not @types/node") {
		t.Fatalf("err = %v, want a refusal of a package that is not @types/node", err)
	}
	if err := os.WriteFile(filepath.Join(empty, "package.json"), []byte(`{"name":"@types/node","version":"20.1.0"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := node.New(node.Options{TypesDir: empty}).TypeDefinitionFiles(context.Background()); err == nil || !strings.Contains(err.Error(), "24 or newer") {
		t.Fatalf("err = %v, want a refusal of @types/node 20", err)
	}
}

// TestTypeDefinitionFilesLayout: the files are the package's declarations
// under node_modules/ (without the ts5.* folders) and one top-level entry.
func TestTypeDefinitionFilesLayout(t *testing.T) {
	files, err := driver(t).TypeDefinitionFiles(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	var top []string
	for _, f := range files {
		names[f.Name] = true
		if !strings.Contains(f.Name, "/") {
			top = append(top, f.Name)
		}
		if strings.Contains(f.Name, "/ts5.") {
			t.Errorf("%s is for older TypeScript versions", f.Name)
		}
	}
	for _, want := range []string{"node_modules/@types/node/index.d.ts", "node_modules/@types/node/fs/promises.d.ts", "node_modules/undici-types/index.d.ts"} {
		if !names[want] {
			t.Errorf("missing %s", want)
		}
	}
	if len(top) != 1 || top[0] != "node-types.d.ts" {
		t.Errorf("top-level files %v, want [%s]", top, "node-types.d.ts")
	}
}
