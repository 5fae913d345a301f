package mcpconnector

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/codemode-go/codemode/internal/errname"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// toolError is an MCP tool result with isError set: the program sees a
// thrown Error whose name is MCPToolError and whose message is the result's
// text.
type toolError struct {
	server string // namespace or server description
	tool   string // the MCP tool name, as the server spells it
	text   string // the result's text content, joined by newlines
}

// Error returns the result's text prefixed with the tool.
func (e *toolError) Error() string {
	return fmt.Sprintf("%s: %s", e.tool, e.text)
}

// ErrorName makes the program's Error name MCPToolError (an ErrorName method; see package client).
func (e *toolError) ErrorName() string { return string(errname.MCPTool) }

// unwrap turns an MCP tool result into the value a program receives, in
// the order codeMcpServer uses (https://developers.cloudflare.com/agents/tools/codemode/api-reference/): an error result is returned as
// a *toolError carrying its text; structured content is the value when
// present; content that is all text is joined by newlines and parsed as JSON
// when it is JSON, else kept as a string; empty content is null; any other
// content (images, audio, resources, mixed) is the whole result object
// {"content": [...]} as MCP encodes it (images as {type: "image", data:
// base64, mimeType}), which result.appendImage accepts item by item.
func unwrap(res *mcp.CallToolResult) (json.RawMessage, error) {
	if res == nil {
		return json.RawMessage("null"), nil
	}
	if res.IsError {
		return nil, &toolError{text: allText(res)}
	}
	if res.StructuredContent != nil {
		out, err := json.Marshal(res.StructuredContent)
		if err != nil {
			return nil, fmt.Errorf("encoding structured content: %w", err)
		}
		return out, nil
	}
	if len(res.Content) == 0 {
		return json.RawMessage("null"), nil
	}
	texts := make([]string, 0, len(res.Content))
	for _, c := range res.Content {
		t, ok := c.(*mcp.TextContent)
		if !ok {
			texts = nil
			break
		}
		texts = append(texts, t.Text)
	}
	if texts != nil {
		text := strings.Join(texts, "\n")
		if json.Valid([]byte(text)) {
			return json.RawMessage(text), nil
		}
		return json.Marshal(text)
	}
	out, err := json.Marshal(struct {
		Content []mcp.Content `json:"content"`
	}{res.Content})
	if err != nil {
		return nil, fmt.Errorf("encoding content: %w", err)
	}
	return out, nil
}

// allText joins an error result's text content; other content is named by
// its type so the message is never silently empty.
func allText(res *mcp.CallToolResult) string {
	var parts []string
	for _, c := range res.Content {
		switch c := c.(type) {
		case *mcp.TextContent:
			parts = append(parts, c.Text)
		default:
			raw, _ := json.Marshal(c)
			var v struct {
				Type string `json:"type"`
			}
			_ = json.Unmarshal(raw, &v)
			parts = append(parts, "["+v.Type+" content]")
		}
	}
	if len(parts) == 0 {
		return "the tool reported an error with no content"
	}
	return strings.Join(parts, "\n")
}
