package contract

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"

	"github.com/codemode-go/codemode/internal/typegen"
)

// digestPrefix versions the digest's input: a change to what is hashed
// changes it, so that digests of two encodings never meet.
const digestPrefix = "codemode contract digest 1\n"

// surfaceDigest is a stable hash of a contract's catalogue: "sha256:"
// followed by 64 lowercase hex digits, over the input schema, the
// namespaces in order with their Definitions, and every tool's name,
// description, schemas, annotations and kind (strict or foreign). Two
// contracts built from the same catalogue, in any process, have the same
// digest; a change to anything a program or the agent can see changes it.
// Handlers are not part of it; schema texts are hashed in compact JSON
// form (whitespace does not count, key order does).
//
// It hashes the surface's JSON encoding (typegen.Surface and
// what it holds have stable field tags; encoding/json sorts map keys).
// Schema texts are compacted first; a text that is not JSON (a declared
// tool's declaration is printed leniently and never parsed before) is
// hashed as a JSON string instead, so that encoding cannot fail.
func surfaceDigest(s typegen.Surface) string {
	s.InputSchema = digestText(s.InputSchema)
	namespaces := make([]typegen.Namespace, len(s.Namespaces))
	for i, ns := range s.Namespaces {
		tools := make([]typegen.ToolDecl, len(ns.Tools))
		for j, t := range ns.Tools {
			t.InputSchema, t.OutputSchema = digestText(t.InputSchema), digestText(t.OutputSchema)
			tools[j] = t
		}
		ns.Tools = tools
		if ns.Definitions != nil {
			d := *ns.Definitions
			d.Document = digestText(d.Document)
			ns.Definitions = &d
		}
		namespaces[i] = ns
	}
	s.Namespaces = namespaces
	text, err := json.Marshal(s)
	if err != nil {
		// Unreachable: every raw text is JSON now, and the rest are
		// strings, booleans and maps of strings.
		text = []byte(err.Error())
	}
	h := sha256.New()
	h.Write([]byte(digestPrefix))
	h.Write(text)
	return "sha256:" + hex.EncodeToString(h.Sum(nil))
}

// digestText is raw compacted, or raw as a JSON string when it is not
// JSON; nil stays nil.
func digestText(raw json.RawMessage) json.RawMessage {
	if raw == nil {
		return nil
	}
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err == nil {
		return b.Bytes()
	}
	q, _ := json.Marshal(string(raw))
	return q
}
