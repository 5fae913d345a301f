package mcpserver

import (
	"encoding/base64"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/codemode-go/codemode/codetool"
	"github.com/codemode-go/codemode/contract"
	"github.com/codemode-go/codemode/internal/answercut"
)

// render is the MCP result of an answer: its JSON (without the content,
// cut to the budget structurally), then, for completed, the content the
// program appended; for paused, a line telling the agent not to retry;
// for error, isError.
func (s *server) render(answer codetool.Answer) (*mcp.CallToolResult, error) {
	budget := s.opts.MaxTokens * 4
	head := answer
	head.Content = nil // sent as items of their own after the JSON
	text, err := head.MarshalJSON()
	if err != nil {
		return nil, err
	}
	res := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: answercut.Cut(string(text), budget)}}}
	switch answer.Status {
	case codetool.StatusPaused:
		var actions []string
		for _, p := range answer.Pending {
			a := fmt.Sprintf("%s.%s (seq %d)", p.Connector, p.Method, p.Seq)
			if p.Uncertain {
				// Its host died between running it and recording it.
				a = fmt.Sprintf("%s.%s (seq %d, uncertain: it may have run already; a person says whether it happened, to run it again, or to fail the run)", p.Connector, p.Method, p.Seq)
			}
			actions = append(actions, a)
		}
		res.Content = append(res.Content, &mcp.TextContent{Text: fmt.Sprintf(
			"The execution %s is paused: %s wait(s) for a person's approval. Do not retry it or send the program again; tell the user what is pending. When a person approves, the execution continues from here without repeating earlier calls; if they reject it, it ends. Call %s with the executionId to see the outcome later.",
			answer.ExecutionID, strings.Join(actions, ", "), resultToolName)})
	case codetool.StatusError:
		res.IsError = true
	default:
		left := budget - utf8.RuneCountInString(textOf(res))
		res.Content = append(res.Content, contentOf(answer.Content, max(left, 0))...)
	}
	return res, nil
}

// contentOf converts what a completed program appended (result.appendText,
// result.appendImage) to MCP content after the answer's JSON: text items
// in order while they fit budget characters (a large one cut with
// answercut.Cut), then a last text item saying how many were left out; images
// as they are (the runtime bounds their size).
func contentOf(items []contract.Content, budget int) []mcp.Content {
	var out []mcp.Content
	left, dropped := budget, 0
	for _, c := range items {
		switch {
		case c.Type == "image":
			data, err := base64.StdEncoding.DecodeString(c.Data)
			if err != nil {
				out = append(out, &mcp.TextContent{Text: "[an image whose data is not base64]"})
				continue
			}
			out = append(out, &mcp.ImageContent{Data: data, MIMEType: c.MimeType})
		case left < 200:
			dropped++
		default:
			text := answercut.Cut(c.Text, left)
			left -= utf8.RuneCountInString(text)
			out = append(out, &mcp.TextContent{Text: text})
		}
	}
	if dropped > 0 {
		out = append(out, &mcp.TextContent{Text: fmt.Sprintf("… [%d more text items left out: the answer is limited to about %d characters]", dropped, budget)})
	}
	return out
}

// textOf is the text of a result's text items.
func textOf(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if t, ok := c.(*mcp.TextContent); ok {
			b.WriteString(t.Text)
		}
	}
	return b.String()
}
