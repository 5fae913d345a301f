package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite docs/cli.md")

// TestCLIReferenceIsFresh: docs/cli.md is the command list and every
// command's --help, as the binary prints them (go test ./cmd/codemode -run
// TestCLIReferenceIsFresh -update rewrites it). Defaults that depend on the
// machine (CPUs, memory, the user's cache folder) are described, not
// printed.
func TestCLIReferenceIsFresh(t *testing.T) {
	t.Setenv(journalEnv, "")
	got := cliReference(t)
	const path = "../../docs/cli.md"
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil || string(want) != got {
		t.Fatalf("docs/cli.md is stale (go test ./cmd/codemode -run TestCLIReferenceIsFresh -update rewrites it): %v", err)
	}
}

// machineDefault matches the printed default of a flag whose default
// depends on the machine.
var machineDefault = regexp.MustCompile(`(?m)^(  -(?:cache-dir|max-engines|max-commands) [a-z]+\n(?:    \t.*\n)*?    \t.*?) \(default [^)]*\)$`)

func cliReference(t *testing.T) string {
	t.Helper()
	var b strings.Builder
	b.WriteString("# Command-line reference\n\nGenerated from the binary's own help by `go test ./cmd/codemode -run TestCLIReferenceIsFresh -update`; do not edit.\n\n```\n")
	b.WriteString(usage())
	b.WriteString("```\n")
	for _, c := range commands() {
		args := []string{c.name}
		switch c.args {
		case "serve":
			args = append(args, "serve")
		case "save NAME --from ID | delete NAME":
			args = append(args, "save")
		}
		var out bytes.Buffer
		code := cli(context.Background(), append(args, "--help"), &out, &out)
		if code != 0 {
			t.Fatalf("%s --help: exit %d\n%s", strings.Join(args, " "), code, out.String())
		}
		help := machineDefault.ReplaceAllString(out.String(), "$1 (default: depends on the machine)")
		fmt.Fprintf(&b, "\n## codemode %s\n\n%s\n\n```\n%s```\n", strings.Join(args, " "), c.summary, help)
	}
	return b.String()
}
