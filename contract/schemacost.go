package contract

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// Bounds of a schema's validation cost (see checkCost).
const (
	// maxApplied is the most subschemas that may apply to one value of an
	// instance: a value is checked against every branch of anyOf, oneOf and
	// allOf and every $ref target at its place, so this bounds the work one
	// value costs. Large real schemas (OpenAPI unions of a few dozen object
	// types) apply a few hundred. Measured with the validator this package
	// uses, on a loaded two-core machine: 2^14 applications took 0.28 s for
	// one value, 2^16 1.8 s, 2^18 7.8 s, so 1,024 should take some 20 ms.
	maxApplied = 1024
	// maxCostStates bounds the analysis itself: the distinct sets of
	// subschemas it follows into nested values.
	maxCostStates = 10000
)

// checkCost refuses a schema whose validation cost grows exponentially:
// composition (anyOf, oneOf, allOf, not, if/then/else, $ref) that applies
// more than maxApplied subschemas to one value, either at once (levels of
// $defs that each reference the next twice) or as values nest (a recursive
// anyOf whose branches both recurse into the same property doubles the
// work per level: a hostile upstream schema of this kind took 24.8 s to
// validate one input). It follows the compiled schema, whose references
// are resolved, through the places an instance can nest (each property
// name, any other property, each tuple position, any item), and returns an
// error naming the JSON pointer of the subschema applied most often.
func checkCost(root *jsonschema.Schema) error {
	type state = map[*jsonschema.Schema]int
	seen := map[string]bool{}
	queue := []state{{root: 1}}
	for len(queue) > 0 && len(seen) < maxCostStates {
		in := queue[0]
		queue = queue[1:]
		here := state{}
		total := 0
		var apply func(s *jsonschema.Schema, n int) bool
		apply = func(s *jsonschema.Schema, n int) bool {
			if s == nil {
				return true
			}
			here[s] += n
			if total += n; total > maxApplied {
				return false
			}
			for _, c := range inPlace(s) {
				if !apply(c, n) {
					return false
				}
			}
			return true
		}
		for s, n := range in {
			if !apply(s, n) {
				return costError(here)
			}
		}
		for _, next := range nested(here) {
			key := stateKey(next)
			if !seen[key] {
				seen[key] = true
				queue = append(queue, next)
			}
		}
	}
	return nil
}

// inPlace returns the subschemas that apply to the same value as s.
func inPlace(s *jsonschema.Schema) []*jsonschema.Schema {
	out := []*jsonschema.Schema{s.Ref, s.RecursiveRef, s.Not, s.If, s.Then, s.Else}
	if s.DynamicRef != nil {
		out = append(out, s.DynamicRef.Ref)
	}
	out = append(out, s.AllOf...)
	out = append(out, s.AnyOf...)
	out = append(out, s.OneOf...)
	for _, d := range s.DependentSchemas {
		out = append(out, d)
	}
	for _, d := range s.Dependencies {
		if d, ok := d.(*jsonschema.Schema); ok {
			out = append(out, d)
		}
	}
	return out
}

// nested groups the subschemas that apply to the values nested in a value
// to which here applies, by place: "p:NAME" for a named property, "p*" for
// any other, "i:N" for a tuple position, "i*" for any item, "c" for decoded
// content. A schema for any property or item is counted at every named
// property or position too, so the count never understates the work.
func nested(here map[*jsonschema.Schema]int) []map[*jsonschema.Schema]int {
	places := map[string]map[*jsonschema.Schema]int{}
	add := func(place string, s *jsonschema.Schema, n int) {
		if s == nil {
			return
		}
		if places[place] == nil {
			places[place] = map[*jsonschema.Schema]int{}
		}
		places[place][s] += n
	}
	var anyProp, anyItem []*jsonschema.Schema
	var anyN []int
	var itemN []int
	for s, n := range here {
		for name, p := range s.Properties {
			add("p:"+name, p, n)
		}
		props := []*jsonschema.Schema{s.PropertyNames, s.UnevaluatedProperties}
		for _, p := range s.PatternProperties {
			props = append(props, p)
		}
		if ap, ok := s.AdditionalProperties.(*jsonschema.Schema); ok {
			props = append(props, ap)
		}
		for _, p := range props {
			if p != nil {
				anyProp, anyN = append(anyProp, p), append(anyN, n)
			}
		}
		items := []*jsonschema.Schema{s.Items2020, s.Contains, s.UnevaluatedItems}
		switch it := s.Items.(type) {
		case *jsonschema.Schema:
			items = append(items, it)
		case []*jsonschema.Schema:
			for i, p := range it {
				add("i:"+strconv.Itoa(i), p, n)
			}
		}
		if ai, ok := s.AdditionalItems.(*jsonschema.Schema); ok {
			items = append(items, ai)
		}
		for i, p := range s.PrefixItems {
			add("i:"+strconv.Itoa(i), p, n)
		}
		for _, p := range items {
			if p != nil {
				anyItem, itemN = append(anyItem, p), append(itemN, n)
			}
		}
		add("c", s.ContentSchema, n)
	}
	for i, p := range anyProp {
		add("p*", p, anyN[i])
	}
	for i, p := range anyItem {
		add("i*", p, itemN[i])
	}
	var out []map[*jsonschema.Schema]int
	for place, set := range places {
		switch {
		case strings.HasPrefix(place, "p:"):
			for i, p := range anyProp {
				set[p] += anyN[i]
			}
		case strings.HasPrefix(place, "i:"):
			for i, p := range anyItem {
				set[p] += itemN[i]
			}
		}
		out = append(out, set)
	}
	return out
}

// stateKey identifies a set of applied subschemas and their counts.
func stateKey(set map[*jsonschema.Schema]int) string {
	parts := make([]string, 0, len(set))
	for s, n := range set {
		parts = append(parts, s.Location+"="+strconv.Itoa(n))
	}
	slices.Sort(parts)
	return strings.Join(parts, ",")
}

// costError names the subschema applied most often in here.
func costError(here map[*jsonschema.Schema]int) error {
	var worst *jsonschema.Schema
	for s, n := range here {
		if worst == nil || n > here[worst] || (n == here[worst] && s.Location < worst.Location) {
			worst = s
		}
	}
	pointer := strings.TrimPrefix(worst.Location, schemaURL)
	if pointer == "" {
		pointer = "#"
	}
	return fmt.Errorf("the schema's composition is too costly to validate: more than %d subschemas (anyOf, oneOf, allOf, $ref, …) would apply to one value, %s most often (%d times); nested anyOf or $ref levels multiply the work, so flatten them", maxApplied, pointer, here[worst])
}
