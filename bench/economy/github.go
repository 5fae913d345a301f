package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/codemode-go/codemode/connector/openapi"
	"github.com/codemode-go/codemode/contract"
)

// errNoGitHub says GitHub's description is not installed.
var errNoGitHub = errors.New("GitHub's REST description (@octokit/openapi) is not installed in .tools/; run ./scripts/test once")

// githubDescription finds GitHub's REST description
// (.tools/node_modules/@octokit/openapi, installed by scripts/test)
// walking up from the working directory.
func githubDescription() (string, error) {
	p, err := toolsFile(filepath.Join("@octokit", "openapi", "generated", "api.github.com.json"))
	if errors.Is(err, fs.ErrNotExist) {
		return "", errNoGitHub
	}
	return p, err
}

// toolsFile finds the file at rel under .tools/node_modules (where
// scripts/test installs npm packages) walking up from the working
// directory; its error wraps fs.ErrNotExist when no such file is found.
func toolsFile(rel string) (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		p := filepath.Join(dir, ".tools", "node_modules", rel)
		if _, err := os.Stat(p); err == nil {
			return p, nil
		} else if !errors.Is(err, fs.ErrNotExist) {
			return "", err
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf(".tools/node_modules/%s: %w", rel, fs.ErrNotExist)
		}
		dir = parent
	}
}

// loadGitHub loads GitHub's description from path as the namespace github.
func loadGitHub(ctx context.Context, path string) (*openapi.Connector, error) {
	c, _, err := openapi.Load(ctx, path, openapi.Options{Name: "github"})
	return c, err
}

// measureGitHub measures GitHub's REST description, loaded in c: (a) the
// tools/list of an MCP server that exposes each operation as a tool (name,
// description and a self-contained input schema: the components it refers
// to in $defs), against (b) code mode over the same document as one
// connector.
func measureGitHub(c *openapi.Connector, count func(string) int, verbose bool, w io.Writer) (measurement, error) {
	list, err := perOperationTools(c)
	if err != nil {
		return measurement{}, err
	}
	ns, err := c.Namespace()
	if err != nil {
		return measurement{}, err
	}
	return measure("GitHub REST API", []contract.Namespace{ns}, list, githubTasks(), count, verbose, w)
}

// componentRef matches a reference to a schema component in a schema's
// JSON text.
var componentRef = regexp.MustCompile(`"#/components/schemas/([^"]+)"`)

// perOperationTools is the tool list of an MCP server exposing each of c's
// operations as a tool. An MCP tool's input schema must stand alone, so
// each carries the closure of the components it refers to under $defs
// (each once, by name), the smallest faithful form: inlining them instead
// repeats shared ones.
func perOperationTools(c *openapi.Connector) ([]*mcp.Tool, error) {
	ns, err := c.Namespace()
	if err != nil {
		return nil, err
	}
	components := map[string]json.RawMessage{}
	if doc := c.Document(); doc.Components != nil {
		for name, s := range doc.Components.Schemas {
			raw, err := json.Marshal(s)
			if err != nil {
				return nil, fmt.Errorf("component %s: %w", name, err)
			}
			components[name] = raw
		}
	}
	var list []*mcp.Tool
	for _, t := range ns.Tools {
		if t.Name() == "request" || t.Name() == "spec" { // code mode's own
			continue
		}
		defs := map[string]json.RawMessage{}
		pending := []json.RawMessage{t.InputDeclaration()}
		for len(pending) > 0 {
			raw := pending[len(pending)-1]
			pending = pending[:len(pending)-1]
			for _, m := range componentRef.FindAllSubmatch(raw, -1) {
				name := string(m[1])
				if _, done := defs[name]; done {
					continue
				}
				def, ok := components[name]
				if !ok {
					return nil, fmt.Errorf("%s refers to a missing component %s", t.Name(), name)
				}
				defs[name] = def
				pending = append(pending, def)
			}
		}
		var schema map[string]json.RawMessage
		if err := json.Unmarshal(t.InputDeclaration(), &schema); err != nil {
			return nil, fmt.Errorf("%s input schema: %w", t.Name(), err)
		}
		if len(defs) > 0 {
			schema["$defs"], _ = json.Marshal(defs) // keys sorted
		}
		raw, _ := json.Marshal(schema)
		raw = []byte(strings.ReplaceAll(string(raw), `"#/components/schemas/`, `"#/$defs/`))
		list = append(list, &mcp.Tool{Name: t.Name(), Description: t.Description(), InputSchema: json.RawMessage(raw)})
	}
	return list, nil
}

// githubTasks are the tuning queries over GitHub's REST API
// (testdata/queries/github-tuning.tsv), written as a person asks, with the
// operation each should find.
func githubTasks() []task { return mustQuerySet("github", tuningSet) }
