package mcpconnector

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"maps"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestProgramNamesAreDistinctAndStable: tools whose names sanitise alike
// all get a name, the one whose MCP name it is (else the first in byte
// order) keeping it and the others suffixed in byte order past the names
// other tools take; every order the server may list the tools in gives
// the same names.
func TestProgramNamesAreDistinctAndStable(t *testing.T) {
	for _, tc := range []struct {
		name  string
		tools []string
		want  map[string]string // MCP name: name in programs
	}{
		{"no collision", []string{"read-file", "write_file"}, map[string]string{"read-file": "read_file", "write_file": "write_file"}},
		{"exact name keeps it", []string{"get-file", "get_file"}, map[string]string{"get_file": "get_file", "get-file": "get_file_2"}},
		{"byte order without an exact name", []string{"get.file", "get-file", "get file"}, map[string]string{"get file": "get_file", "get-file": "get_file_2", "get.file": "get_file_3"}},
		{"a suffix another tool has is skipped", []string{"get-file", "get_file_2", "get.file", "get_file"},
			map[string]string{"get_file": "get_file", "get_file_2": "get_file_2", "get-file": "get_file_3", "get.file": "get_file_4"}},
		{"two groups", []string{"a-b", "a.b", "delete", "delete_", "x"},
			map[string]string{"a-b": "a_b", "a.b": "a_b_2", "delete_": "delete_", "delete": "delete__2", "x": "x"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, order := range permutations(tc.tools) {
				tools := make([]*mcp.Tool, len(order))
				for i, n := range order {
					tools[i] = &mcp.Tool{Name: n}
				}
				names, _ := programNames(tools, nil)
				got := map[string]string{}
				for k, v := range names {
					got[k] = v.name
				}
				if !reflect.DeepEqual(got, tc.want) {
					t.Fatalf("listed as %q: %v, want %v", order, got, tc.want)
				}
				if distinct := slices.Compact(slices.Sorted(maps.Values(got))); len(distinct) != len(got) {
					t.Fatalf("listed as %q: names %v are not distinct", order, got)
				}
			}
		})
	}
}

// TestToolListedTwiceIsDeclaredOnce: a server that lists one MCP name
// twice has the first declared and a warning, beside a tool that
// sanitises alike; before, the two were "both get_file" and the server
// was down.
func TestToolListedTwiceIsDeclaredOnce(t *testing.T) {
	schema := json.RawMessage(`{"type":"object"}`)
	u := &upstream{server: Server{Name: "x"}, log: slog.New(slog.DiscardHandler), tools: []*mcp.Tool{
		{Name: "get_file", Description: "First.", InputSchema: schema},
		{Name: "get-file", Description: "Dashed.", InputSchema: schema},
		{Name: "get_file", Description: "Second.", InputSchema: schema},
	}}
	ns, warnings, err := u.namespace()
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, tool := range ns.Tools {
		got = append(got, tool.Name()+": "+strings.SplitN(tool.Description(), "\n", 2)[0])
	}
	if want := []string{"get_file: First.", "get_file_2: Dashed."}; !slices.Equal(got, want) {
		t.Errorf("tools %q, want %q", got, want)
	}
	if w := fmt.Sprint(warnings); !strings.Contains(w, "lists get_file more than once: the first of each is declared") {
		t.Errorf("warnings %s", w)
	}
}

// permutations lists every order of s.
func permutations(s []string) [][]string {
	if len(s) <= 1 {
		return [][]string{slices.Clone(s)}
	}
	var out [][]string
	for i := range s {
		rest := slices.Concat(s[:i], s[i+1:])
		for _, p := range permutations(rest) {
			out = append(out, append([]string{s[i]}, p...))
		}
	}
	return out
}
