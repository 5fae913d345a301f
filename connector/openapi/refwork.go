package openapi

import (
	"fmt"
	"net/url"
	"strings"

	"github.com/codemode-go/codemode/internal/jsonpointer"
)

// kin-openapi's resolver and validator do work that grows with how often
// references reach each schema, not with the document's size: the
// resolver reads a component's members again for every reference to it
// (sorting its property names each time), and the validator checks every
// schema reachable from each component and each operation afresh. A
// 632 KB document of 4,000 components each with a property referring to
// one hub of 4,000 properties took 19 s to load (8,000 would take
// minutes), and a chain of 4,000 schemas each with a property referring
// to the next 4.5 s. checkReferenceWork estimates both from the text
// before kin-openapi reads it: a document past the resolver's bound is
// refused, one past the validator's is used without being validated
// (validation only warns).
//
// The work is counted in the objects of components' text read. GitHub's
// description counts 0.18 M to resolve and 0.41 M to validate, Stripe's
// 0.05 M and 4.1 M, Kubernetes' 0.09 M and 0.75 M, Microsoft Graph's
// 0.36 M and 5.9 M. The hub of 1,900 (3.6 M and 7.2 M) loads in 4-5 s on
// a loaded two-core machine, the chain of 4,000 (unvalidated) in 0.2 s.
const (
	maxResolveWork  = 2_000_000
	maxValidateWork = 8_000_000
)

// refGraph is what checkReferenceWork reads of a document: its components
// (each member of a components group, or of Swagger 2.0's definitions,
// parameters and responses), the number of objects in each one's text,
// and the components each reference names, by where it stands.
type refGraph struct {
	ids   map[string]int // "schemas/Pet" -> index
	size  []int64
	out   [][]int // the components each component's references name
	loose []int   // the components references outside components name
}

// checkReferenceWork refuses a document whose references would make
// kin-openapi's resolver work past maxResolveWork, naming the bound, and
// returns a warning when they would make its validator work past
// maxValidateWork: the document is then used without being validated
// (validation only warns). It reads jsonText, valid JSON, once.
func checkReferenceWork(jsonText []byte) (warning string, err error) {
	g := readRefGraph(jsonText)
	var resolve int64
	for _, t := range g.loose {
		resolve += g.size[t]
	}
	for _, targets := range g.out {
		for _, t := range targets {
			resolve += g.size[t]
		}
	}
	if resolve > maxResolveWork {
		return "", fmt.Errorf("the document's references would have the resolver read %d schema objects, more than %d: refused (a schema referred to from many places is read again for each; the time grows with the product)", resolve, maxResolveWork)
	}
	if _, over := g.validateWork(); over {
		return fmt.Sprintf("the document was not validated: checking each component and operation with every schema it reaches would read more than %d schema objects", maxValidateWork), nil
	}
	return "", nil
}

// validateWork is the objects of the components reachable from each
// component and from each reference outside components, summed; true
// when the sum passes maxValidateWork (it stops counting there).
func (g *refGraph) validateWork() (int64, bool) {
	seen := make([]int, len(g.size)) // the root's number + 1 when reached from it
	var total int64
	var stack []int
	root := 0
	walk := func(c int) bool {
		root++
		seen[c], stack = root, append(stack[:0], c)
		for len(stack) > 0 {
			c := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			if total += g.size[c]; total > maxValidateWork {
				return false
			}
			for _, n := range g.out[c] {
				if seen[n] != root {
					seen[n] = root
					stack = append(stack, n)
				}
			}
		}
		return true
	}
	for c := range g.size {
		if !walk(c) {
			return total, true
		}
	}
	for _, c := range g.loose {
		if !walk(c) {
			return total, true
		}
	}
	return total, false
}

// refFrame is an object or array readRefGraph is in: the key of the
// member being read (objects), whether a key comes next, and the
// component it is part of (-1: none).
type refFrame struct {
	object  bool
	wantKey bool
	key     string
	comp    int
}

// readRefGraph reads jsonText (valid JSON) in one pass for its components
// and references. Top-level and group keys are matched case-insensitively,
// as encoding/json matches kin-openapi's fields.
func readRefGraph(text []byte) *refGraph {
	g := &refGraph{ids: map[string]int{}}
	var refs [][2]int // from (component or -1), to
	var stack []refFrame
	for i := 0; i < len(text); i++ {
		switch c := text[i]; c {
		case '{', '[':
			comp := -1
			if n := len(stack); n > 0 {
				comp = stack[n-1].comp
				if id, ok := componentAt(stack); ok && comp < 0 {
					comp = g.id(id)
				}
			}
			if comp >= 0 && c == '{' {
				g.size[comp]++
			}
			stack = append(stack, refFrame{object: c == '{', wantKey: c == '{', comp: comp})
		case '}', ']':
			if len(stack) == 0 {
				return g.link(refs) // not JSON: the decoder says so
			}
			stack = stack[:len(stack)-1]
		case ',':
			if len(stack) == 0 {
				return g.link(refs)
			}
			if f := &stack[len(stack)-1]; f.object {
				f.wantKey = true
			}
		case '"':
			end, ok := stringEnd(text, i)
			if !ok {
				return g.link(refs)
			}
			if n := len(stack); n > 0 {
				f := &stack[n-1]
				switch {
				case f.object && f.wantKey:
					f.key, _ = keyString(text[i:end])
					f.wantKey = false
				case f.object && f.key == "$ref":
					ref, _ := keyString(text[i:end])
					if id, ok := refComponent(ref); ok {
						refs = append(refs, [2]int{f.comp, g.id(id)})
					}
				}
			}
			i = end - 1
		}
	}
	return g.link(refs)
}

// link files the references read, each (from, to), as g's out (from a
// component) and loose (from -1, outside components), and returns g.
func (g *refGraph) link(refs [][2]int) *refGraph {
	g.out = make([][]int, len(g.size))
	for _, r := range refs {
		if r[0] < 0 {
			g.loose = append(g.loose, r[1])
		} else {
			g.out[r[0]] = append(g.out[r[0]], r[1])
		}
	}
	return g
}

// id is the index of the component id ("schemas/Pet"), added when new.
func (g *refGraph) id(id string) int {
	n, ok := g.ids[id]
	if !ok {
		n = len(g.size)
		g.ids[id] = n
		g.size = append(g.size, 0)
	}
	return n
}

// componentAt is the id of the component whose value starts where stack
// (the frames around it) stands: components/<group>/<name>, or Swagger
// 2.0's definitions, parameters or responses /<name>.
func componentAt(stack []refFrame) (string, bool) {
	if !stack[0].object {
		return "", false
	}
	top := strings.ToLower(stack[0].key)
	switch {
	case len(stack) == 3 && top == "components" && stack[1].object && stack[2].object:
		return strings.ToLower(stack[1].key) + "/" + stack[2].key, true
	case len(stack) == 2 && (top == "definitions" || top == "parameters" || top == "responses") && stack[1].object:
		return top + "/" + stack[1].key, true
	}
	return "", false
}

// refComponent is the id of the component a reference names (or names a
// part of), read as kin-openapi reads it: the fragment percent-decoded,
// its tokens unescaped.
func refComponent(ref string) (string, bool) {
	if !strings.HasPrefix(ref, "#") {
		return "", false
	}
	u, err := url.Parse(ref)
	if err != nil {
		return "", false
	}
	tokens := strings.SplitN(strings.TrimPrefix(u.Fragment, "/"), "/", 4)
	top := strings.ToLower(tokens[0])
	switch {
	case top == "components" && len(tokens) >= 3:
		return strings.ToLower(tokens[1]) + "/" + jsonpointer.Unescape(tokens[2]), true
	case (top == "definitions" || top == "parameters" || top == "responses") && len(tokens) >= 2:
		return top + "/" + jsonpointer.Unescape(tokens[1]), true
	}
	return "", false
}
