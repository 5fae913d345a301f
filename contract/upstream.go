package contract

// Upstream returns what the tool's handler calls, in its connector's
// words ("MCP tool get-file", "operation GET /pets/{petId}"), or "" when
// the tool's name is its identity (the default: a Go function, a
// tools-file command).
//
// A connector sets it when it derives a tool's name in programs from
// something upstream and that name can come to mean another upstream
// tool when the upstream changes: an MCP server that adds a tool whose
// name sanitises like another's moves the plain name to the new tool
// (get-file was get_file, and becomes get_file_2 beside a new get_file);
// an OpenAPI document whose operations change may give an operation's
// name to another. A runner that records calls and runs or answers them
// later (after a person's approval, after a restart) records Upstream
// with each call, and refuses to go on when the tool of that name now
// has another: the person approved a call of the tool named then, not
// of whatever has the name now.
//
// It is compared byte for byte, so a connector writes it the same way in
// every release: a reworded Upstream reads as another tool.
func (t *Tool) Upstream() string { return t.upstream }

// WithUpstream returns a copy of the tool whose Upstream is upstream
// (replacing any it had; "" removes it). The tool itself is unchanged.
//
//	get, err := contract.NewForeignTool("get_file_2", "Reads a file.", in, out, call)
//	get = get.WithUpstream("MCP tool get-file")
func (t *Tool) WithUpstream(upstream string) *Tool {
	c := *t
	c.upstream = upstream
	return &c
}
