// Package toolname turns foreign names (MCP tools and servers, OpenAPI
// operations) into the JavaScript identifiers contract tools and
// namespaces must be.
package toolname

import (
	"errors"
	"strings"

	"github.com/codemode-go/codemode/contract"
)

// Sanitize turns an MCP tool or server name into a JavaScript
// identifier that contract.CheckToolName accepts
// (sanitizeToolName, https://developers.cloudflare.com/agents/tools/codemode/api-reference/): the common separators "-", ".", "/", ":" and spaces
// become "_", other characters that cannot be in an identifier are dropped,
// a name that starts with a digit gets a "_" prefix, and a reserved word,
// "then", "__proto__" or an Object.prototype property name gets a "_"
// suffix. An empty result is "_".
//
//	Sanitize("read-file")   // "read_file"
//	Sanitize("2fa.verify")  // "_2fa_verify"
//	Sanitize("delete")      // "delete_"
func Sanitize(name string) string {
	var b strings.Builder
	for _, r := range name {
		switch {
		case r == '-' || r == '.' || r == '/' || r == ':' || r == ' ' || r == '\t':
			b.WriteByte('_')
		case r == '_' || r == '$' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9':
			b.WriteRune(r)
		}
	}
	s := b.String()
	if s == "" {
		return "_"
	}
	if s[0] >= '0' && s[0] <= '9' {
		s = "_" + s
	}
	if err := contract.CheckToolName(s); errors.Is(err, contract.ErrInvalidToolName) {
		s += "_"
	}
	return s
}
