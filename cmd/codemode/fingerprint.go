package main

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"os"
	"slices"
	"strings"

	"github.com/codemode-go/codemode/connector/mcpconnector"
	"github.com/codemode-go/codemode/connector/openapi"
	"github.com/codemode-go/codemode/contract"
)

// The configuration fingerprint (durable.Options.Configuration) of the
// connectors a command builds: what an approval's connectors must share
// with the run's, so that an approved request goes to the same server,
// with the same headers, as the run's would have. Names and digests only:
// never a header's value, an MCP server's arguments or environment.

// digest is "sha256:" and the first 16 bytes of b's SHA-256, in hex.
func digest(b []byte) string {
	sum := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(sum[:16])
}

// headerNames lists h's names, sorted and comma-separated, or "none".
func headerNames(h http.Header) string {
	if len(h) == 0 {
		return "none"
	}
	return strings.Join(slices.Sorted(maps.Keys(h)), ", ")
}

// openapiFingerprint adds one OpenAPI connector's items: its base URL, its
// document's digest and the names of the headers it sends.
func openapiFingerprint(into map[string]string, c *openapi.Connector, headers http.Header) error {
	doc, err := c.DocumentJSON()
	if err != nil {
		return fmt.Errorf("the document of %s: %w", c.Name(), err)
	}
	into[c.Name()+" base URL"] = c.BaseURL()
	into[c.Name()+" document"] = digest(doc)
	into[c.Name()+" header names"] = headerNames(headers)
	return nil
}

// mcpFingerprint adds one MCP server's item: its name and command (or
// URL, redacted), the digest of its whole command line or URL, and the
// names (not values) of its headers and environment variables.
func mcpFingerprint(into map[string]string, s mcpconnector.Server) {
	line, _ := json.Marshal(append([]string{s.Command, s.URL}, s.Args...))
	h := http.Header{}
	for name := range s.Headers {
		h.Add(name, "")
	}
	env := "none"
	if len(s.Env) > 0 {
		env = strings.Join(slices.Sorted(maps.Keys(s.Env)), ", ")
	}
	into[s.Name+" MCP server"] = fmt.Sprintf("%s, command line or URL %s, header names %s, environment names %s", s, digest(line), headerNames(h), env)
}

// toolsFingerprint adds the tools file's item: its content's digest.
func toolsFingerprint(into map[string]string, path string) error {
	raw, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("--tools: %w", err)
	}
	into["tools file"] = digest(raw)
	return nil
}

// revertsItem is the configuration item naming the tools that have a
// revert (contract.Policy.Revert: a tools file's "revert"), as
// "namespace.tool" comma-separated, or "none": the journal records an
// action's tool, not whether it can be undone, and reject says from it
// whether codemode rollback has anything to revert (afterReject).
const revertsItem = "tools with a revert"

// revertsFingerprint adds revertsItem for namespaces. MCP servers' tools
// have no revert, so the namespaces of a tools file and of OpenAPI
// documents are all it needs, whichever MCP servers are up.
func revertsFingerprint(into map[string]string, namespaces []contract.Namespace) {
	var names []string
	for _, ns := range namespaces {
		for _, t := range ns.Tools {
			if t.Policy().Revert != nil {
				names = append(names, ns.Name+"."+t.Name())
			}
		}
	}
	into[revertsItem] = cmp.Or(strings.Join(names, ", "), "none")
}
