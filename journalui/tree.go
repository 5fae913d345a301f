package journalui

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"

	"github.com/codemode-go/codemode/internal/termtext"
)

// foldAt is how many characters of a string value the page shows before
// folding the rest behind a "show all" disclosure.
const foldAt = 200

// binaryAt is the length from which a string of base64 characters only is
// summarized as binary data (its size and hash, the text behind a
// disclosure).
const binaryAt = 512

var base64Text = regexp.MustCompile(`^[A-Za-z0-9+/]+={0,2}$`)

// node is one value of a JSON document as the page shows it: a tree in
// which every key is shown, long strings are folded but expandable, and
// binary data is summarized. Nothing is left out.
type node struct {
	Key      string // the member name, JSON-quoted, for a value in an object
	Kind     string // object, array, string, number, boolean or null
	Text     string // a scalar as JSON text; a string JSON-quoted, whole
	Preview  string // a folded string's start
	Size     int    // a folded string's length in characters
	Binary   string // binary data's summary
	Children []node
}

// tree parses a JSON value into its node; text that is not JSON becomes
// one string node holding it whole.
func tree(v json.RawMessage) *node {
	if len(v) == 0 {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(v))
	dec.UseNumber()
	n, err := readNode(dec)
	if err != nil {
		return stringNode(string(v))
	}
	return &n
}

func readNode(dec *json.Decoder) (node, error) {
	tok, err := dec.Token()
	if err != nil {
		return node{}, err
	}
	switch t := tok.(type) {
	case json.Delim:
		return readContainer(dec, t)
	case string:
		return *stringNode(t), nil
	case json.Number:
		return node{Kind: "number", Text: t.String()}, nil
	case bool:
		return node{Kind: "boolean", Text: fmt.Sprint(t)}, nil
	}
	return node{Kind: "null", Text: "null"}, nil
}

// readContainer reads an object's or array's members after its opening
// delimiter, in document order (duplicate keys kept).
func readContainer(dec *json.Decoder, open json.Delim) (node, error) {
	n := node{Kind: "array", Children: []node{}}
	if open == '{' {
		n.Kind = "object"
	}
	for dec.More() {
		key := ""
		if open == '{' {
			k, err := dec.Token()
			if err != nil {
				return node{}, err
			}
			key = quote(fmt.Sprint(k))
		}
		c, err := readNode(dec)
		if err != nil {
			return node{}, err
		}
		c.Key = key
		n.Children = append(n.Children, c)
	}
	_, err := dec.Token()
	return n, err
}

func stringNode(s string) *node {
	n := &node{Kind: "string", Text: quote(s)}
	r := []rune(s)
	switch {
	case len(s) >= binaryAt && len(s)%4 == 0 && base64Text.MatchString(s):
		if b, err := base64.StdEncoding.DecodeString(s); err == nil {
			sum := sha256.Sum256(b)
			n.Binary = fmt.Sprintf("binary data (base64): %d bytes, SHA-256 %s", len(b), hex.EncodeToString(sum[:]))
		}
	case len(r) > foldAt:
		n.Preview, n.Size = quote(string(r[:foldAt])), len(r)
		n.Preview = strings.TrimSuffix(n.Preview, `"`)
	}
	return n
}

// quote is termtext.Quote: s as a JSON string literal with the characters
// that hide or reorder text escaped.
func quote(s string) string { return termtext.Quote(s) }
