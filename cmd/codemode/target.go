package main

import (
	"fmt"
	"net/url"
	"strings"
	"unicode"

	"github.com/codemode-go/codemode/connector/mcpconnector"
)

// parseTarget reads a command line's upstream: an http:// or https:// URL is
// a streamable HTTP server; anything else is a command line split on spaces
// (double or single quotes group words; no other shell syntax), for example
// "npx -y @modelcontextprotocol/server-memory". The server is unnamed.
func parseTarget(target string) (mcpconnector.Server, error) {
	target = strings.TrimSpace(target)
	if strings.HasPrefix(target, "http://") || strings.HasPrefix(target, "https://") {
		if _, err := url.ParseRequestURI(target); err != nil {
			return mcpconnector.Server{}, fmt.Errorf("mcpconnector: %w", err)
		}
		return mcpconnector.Server{URL: target}, nil
	}
	words, err := splitWords(target)
	if err != nil {
		return mcpconnector.Server{}, err
	}
	if len(words) == 0 {
		return mcpconnector.Server{}, fmt.Errorf("mcpconnector: empty MCP server command")
	}
	return mcpconnector.Server{Command: words[0], Args: words[1:]}, nil
}

// splitWords splits a command line on spaces, honouring quotes.
func splitWords(s string) ([]string, error) {
	var words []string
	var cur strings.Builder
	inWord := false
	var quote rune
	for _, r := range s {
		switch {
		case quote != 0:
			if r == quote {
				quote = 0
			} else {
				cur.WriteRune(r)
			}
		case r == '"' || r == '\'':
			quote, inWord = r, true
		case unicode.IsSpace(r):
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		default:
			cur.WriteRune(r)
			inWord = true
		}
	}
	if quote != 0 {
		return nil, fmt.Errorf("mcpconnector: unterminated %c quote in %q", quote, s)
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words, nil
}
