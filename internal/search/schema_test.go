package search

import (
	"encoding/json"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// podDefinitions are components shaped like Kubernetes': a Pod reaches its
// qosClass through its status, a reference.
const podDefinitions = `{"components": {"schemas": {
	"Pod": {"type": "object", "properties": {
		"metadata": {"$ref": "#/components/schemas/ObjectMeta"},
		"spec": {"$ref": "#/components/schemas/PodSpec"},
		"status": {"$ref": "#/components/schemas/PodStatus"}}},
	"PodList": {"type": "object", "properties": {"items": {"type": "array", "items": {"$ref": "#/components/schemas/Pod"}}}},
	"PodSpec": {"type": "object", "properties": {
		"containers": {"type": "array", "items": {"$ref": "#/components/schemas/Container"}},
		"nodeName": {"type": "string"}}},
	"PodStatus": {"type": "object", "properties": {"phase": {"type": "string"}, "qosClass": {"type": "string"}}},
	"Container": {"type": "object", "properties": {"image": {"type": "string"}}},
	"ObjectMeta": {"type": "object", "properties": {"name": {"type": "string"}, "labels": {"type": "object"}}},
	"PriorityClass": {"type": "object", "properties": {"metadata": {"$ref": "#/components/schemas/ObjectMeta"}, "value": {"type": "integer"}}},
	"RuntimeClass": {"type": "object", "properties": {"metadata": {"$ref": "#/components/schemas/ObjectMeta"}, "handler": {"type": "string"}}},
	"Node": {"type": "object", "properties": {"metadata": {"$ref": "#/components/schemas/ObjectMeta"}, "status": {"type": "object", "properties": {"capacity": {"type": "object"}, "nodeInfo": {"type": "object", "properties": {"kernelVersion": {"type": "string"}, "osImage": {"type": "string"}}}}}}},
	"Invoice": {"type": "object", "properties": {"paid": {"type": "boolean"}, "tax": {"type": "integer"}, "total": {"type": "integer"}, "lines": {"$ref": "#/components/schemas/LineList"}}},
	"LineList": {"type": "object", "properties": {"data": {"type": "array", "items": {"$ref": "#/components/schemas/Line"}}}},
	"Line": {"type": "object", "properties": {"amount": {"type": "integer"}, "period": {"type": "object"}}},
	"a/b~c": {"type": "object", "properties": {"escaped": {"type": "string"}}}
}}}`

func TestDefinitionsResolve(t *testing.T) {
	defs := NewDefinitions(json.RawMessage(podDefinitions), nil)
	for _, tc := range []struct {
		ref  string
		want string // a property the resolved schema has; "" for none
	}{
		{"#/components/schemas/PodStatus", "qosClass"},
		{"#/components/schemas/PodStatus", "qosClass"}, // again, from the cache
		{"#/components/schemas/a~1b~0c", "escaped"},
		{"#/components/schemas/Missing", ""},
		{"#/components/nothing/Pod", ""},
		{"other.json#/components/schemas/Pod", ""},
		{"#/components/schemas/Pod/properties/spec", ""}, // a reference, not a schema with properties
	} {
		var names []string
		if at, ok := defs.resolve(tc.ref); ok {
			for _, p := range defs.node(at).props {
				names = append(names, p.name)
			}
		}
		if got := slices.Contains(names, tc.want); got != (tc.want != "") {
			t.Errorf("resolve(%q) has properties %q, want %q among them", tc.ref, names, tc.want)
		}
	}
	for _, doc := range []string{``, `{`, `{"components": {"schemas": {"Pod": {"properties": }}}}`, `[1, 2]`, `{"components": "x"}`} {
		defs := NewDefinitions(json.RawMessage(doc), nil)
		if at, ok := defs.resolve("#/components/schemas/Pod"); ok && defs.node(at) != nil {
			t.Errorf("resolve in %q = %v, read as %+v, want none", doc, at, defs.node(at))
		}
	}
}

func TestOutputFields(t *testing.T) {
	defs := NewDefinitions(json.RawMessage(podDefinitions), nil)
	for _, tc := range []struct {
		name, schema string
		want         []string
	}{
		{"breadth first through references", `{"$ref": "#/components/schemas/Pod"}`,
			[]string{"metadata", "spec", "status", "labels", "name", "containers", "nodeName", "phase", "qosClass", "image"}},
		{"a list's items at their own level, three levels", `{"$ref": "#/components/schemas/PodList"}`,
			[]string{"items", "metadata", "spec", "status", "labels", "name", "containers", "nodeName", "phase", "qosClass"}},
		{"an array of references", `{"type": "array", "items": {"$ref": "#/components/schemas/PodStatus"}}`,
			[]string{"phase", "qosClass"}},
		{"the schema's own definitions first", `{"$ref": "#/$defs/Node", "$defs": {"Node": {"properties": {"next": {"$ref": "#/$defs/Node"}, "value": {}}}}}`,
			[]string{"next", "value"}},
		{"anyOf", `{"anyOf": [{"type": "string"}, {"$ref": "#/components/schemas/RuntimeClass"}]}`,
			[]string{"handler", "metadata", "labels", "name"}},
		{"no schema", ``, nil},
		{"not JSON", `{`, nil},
	} {
		got := outputFields(json.RawMessage(tc.schema), defs)
		if !slices.Equal(got, tc.want) {
			t.Errorf("%s: outputFields(%s) = %q, want %q", tc.name, tc.schema, got, tc.want)
		}
	}
}

func TestOutputFieldsBounded(t *testing.T) {
	// A chain of objects each with many fields and one deeper.
	var b strings.Builder
	b.WriteString(`{"components": {"schemas": {`)
	for i := range 10 {
		if i > 0 {
			b.WriteString(",")
		}
		b.WriteString(`"S` + string(rune('0'+i)) + `": {"properties": {"next": {"$ref": "#/components/schemas/S` + string(rune('0'+i+1)) + `"}`)
		for j := range 100 {
			b.WriteString(`, "f` + string(rune('0'+i)) + `_` + strings.Repeat("x", j) + `": {}`)
		}
		b.WriteString(`}}`)
	}
	b.WriteString(`}}}`)
	defs := NewDefinitions(json.RawMessage(b.String()), nil)
	got := outputFields(json.RawMessage(`{"$ref": "#/components/schemas/S0"}`), defs)
	if len(got) != maxOutputFields {
		t.Errorf("outputFields kept %d names, want %d", len(got), maxOutputFields)
	}
	for _, n := range got {
		if n != "next" && !strings.HasPrefix(n, "f0_") && !strings.HasPrefix(n, "f1_") {
			t.Errorf("outputFields kept %q, deeper than the first levels' names", n)
		}
	}
}

// TestOutputFieldFindsOperation: a question about a field of what an
// operation returns ranks that operation first, over one the rest of the
// query matches as well (without the output field the two tie and document
// order puts the other first: the test can fail), and an action counts no
// output.
func TestOutputFieldFindsOperation(t *testing.T) {
	defs := NewDefinitions(json.RawMessage(`{"components": {"schemas": {
		"charge": {"properties": {"amount": {}, "outcome": {"$ref": "#/components/schemas/outcome"}}},
		"outcome": {"properties": {"risk_level": {}, "seller_message": {}}},
		"refund": {"properties": {"amount": {}, "reason": {}}}}}}`), nil)
	ops := []struct{ name, description, output string }{
		{"GetRefundsRefund", "Retrieve a refund\n\nRetrieves the details of a payment.\n\nGET /v1/refunds/{refund}", "refund"},
		{"GetChargesCharge", "Retrieve a charge\n\nRetrieves the details of a payment.\n\nGET /v1/charges/{charge}", "charge"},
		{"DeleteRefundsRefund", "Delete a refund\n\nDeletes a payment.\n\nDELETE /v1/refunds/{refund}", "refund"},
		{"DeleteChargesCharge", "Delete a charge\n\nDeletes a payment.\n\nDELETE /v1/charges/{charge}", "charge"},
	}
	docs := make([]Document, len(ops))
	for i, op := range ops {
		docs[i] = NewDocument(Tool{Namespace: "stripe", Name: op.name, Description: op.description,
			OutputSchema: json.RawMessage(`{"$ref": "#/components/schemas/` + op.output + `"}`), Definitions: defs})
	}
	with := New(docs)
	values := DefaultWeights()
	values[slices.Index(WeightNames(), "output")] = 0
	without, err := with.Reweighted(values)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		query         string
		with, without string
	}{
		{"what risk level did payment py_1 get", "GetChargesCharge", "GetRefundsRefund"},
		{"show the seller message of payment py_1", "GetChargesCharge", "GetRefundsRefund"},
		{"why was payment py_1 refunded: the reason", "GetRefundsRefund", "GetRefundsRefund"},
		{"delete the payment py_1 whose risk level is high", "DeleteRefundsRefund", "DeleteRefundsRefund"}, // an action: no output counts
	} {
		for _, c := range []struct {
			ix   *Index
			want string
		}{{with, tc.with}, {without, tc.without}} {
			hits, _ := c.ix.Search(tc.query, 3)
			if len(hits) == 0 || ops[hits[0].Doc].name != c.want {
				t.Errorf("Search(%q) = %v, want %s first (output weight %v)", tc.query, hits, c.want, c.ix.w.output)
			}
		}
	}
}

func TestSkipValue(t *testing.T) {
	long := strings.Repeat("x", 20)
	for _, tc := range []struct {
		text string
		want int // the end of the first value; -1 when it does not end
	}{
		{`"a" , 1`, 3},
		{`"a\"b"x`, 6},
		{`"` + long + `\\"x`, 24},
		{`"` + long + `\"` + long + `"x`, 44},
		{`{"a": "}", "b": [1, {"c": "]"}]}  `, 32},
		{`{"` + long + `": "` + long + `\\", "d": {}}x`, 59},
		{`[ "\\\"{" , {} ]`, 16},
		{`{"a": [}`, -1},
		{`"open`, -1},
		{`12, 3`, 2},
		{`true}`, 4},
		{``, -1},
	} {
		if got := skipValue([]byte(tc.text), 0); got != tc.want {
			t.Errorf("skipValue(%q) = %d, want %d", tc.text, got, tc.want)
		}
	}
}

func TestPointerIndexLookup(t *testing.T) {
	doc := []byte(`{"$defs": {"a/b": {"x": 1}, "a": {"b": 2}, "N": {"properties": {}}, "a b": 3, "é": 4, "": 5}, "items": [1]}`)
	for _, tc := range []struct {
		ref, want string // want "" for none
	}{
		{"#/$defs/N", `{"properties": {}}`},
		{"#/$defs/a~1b/x", `1`},
		{"#", string(doc)},
		{"#/$defs/M", ""},
		{"#/items/0", ""}, // arrays are not read
		{"other#/$defs/N", ""},
		{"#$defs", ""}, // a plain-name anchor
		// Percent-decoded before it is split, as the declarations'
		// printer reads it: "%2F" separates tokens.
		{"#/$defs/a%2Fb", `2`},
		{"#/$defs/a%7E1b/x", `1`},
		{"#/$defs/a%20b", `3`},
		{"#/$defs/%C3%A9", `4`},
		{"#/$defs/", `5`},
		{"#/$defs/%zz", ""}, // not percent-encoding
		{"#/$defs/%FF", ""}, // not UTF-8
		{"#/$defs/N/", ""},  // N has no member ""
		{"#/$defs/N//", ""},
	} {
		at, ok := (&pointerIndex{doc: doc}).lookup(tc.ref)
		got := ""
		if ok {
			got = string(doc[at.start:at.end])
		}
		if got != tc.want {
			t.Errorf("lookup(%q) = %q, want %q", tc.ref, got, tc.want)
		}
	}
}

// TestLookupLongReferences: a reference of more tokens than
// maxRefTokens does not resolve, and each object on references' ways is
// read once: twenty references 9,000 tokens deep into objects nested as
// deep (a 414 KB schema) read the schema for 19 s in a tool's own schema
// and allocated 1.6 GB in the Definitions' document before.
func TestLookupLongReferences(t *testing.T) {
	const depth = 9000
	doc := []byte(strings.Repeat(`{"a":`, depth) + `{"properties":{"x":{}}}` + strings.Repeat(`}`, depth))
	p := &pointerIndex{doc: doc}
	for i := range 20 {
		if at, ok := p.lookup("#" + strings.Repeat("/a", depth-i)); ok {
			t.Errorf("a reference %d tokens long resolved to %d..%d", depth-i, at.start, at.end)
		}
	}
	if len(p.members) > maxRefTokens+1 {
		t.Errorf("lookup read %d objects for references too long to resolve", len(p.members))
	}
	for i := range 20 {
		ref := "#" + strings.Repeat("/a", maxRefTokens-i%4)
		if _, ok := p.lookup(ref); !ok {
			t.Errorf("lookup(%q) did not resolve", ref)
		}
	}
	if len(p.members) != maxRefTokens {
		t.Errorf("lookup read %d objects on the ways of references at most %d tokens long, want each once", len(p.members), maxRefTokens)
	}
}

// TestOutputFieldsQueueBounded: a schema whose properties or allOf
// members name it again many times is walked queueing no more places than
// are visited. A 1.35 MB schema repeating one property 50,000 times, each
// a reference to the schema, allocated 4.6 GB and took 8 s before.
func TestOutputFieldsQueueBounded(t *testing.T) {
	const n = 10000
	for _, tc := range []struct {
		name, open, member, close string
	}{
		{"a property repeated", `{"properties": {`, `"p": {"$ref": "#/$defs/A"}`, `}}`},
		{"allOf", `{"allOf": [`, `{"$ref": "#/$defs/A"}`, `]}`},
	} {
		members := strings.TrimSuffix(strings.Repeat(tc.member+",", n), ",")
		a := tc.open + members + tc.close
		for _, c := range []struct {
			schema string
			defs   *Definitions
		}{
			{`{"$ref": "#/$defs/A", "$defs": {"A": ` + a + `}}`, nil},
			{`{"$ref": "#/$defs/A"}`, NewDefinitions(json.RawMessage(`{"$defs": {"A": `+a+`}}`), nil)},
		} {
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			outputFields(json.RawMessage(c.schema), c.defs)
			runtime.ReadMemStats(&after)
			if mb := (after.TotalAlloc - before.TotalAlloc) >> 20; mb > 32 {
				t.Errorf("%s (Definitions %v): outputFields allocated %d MB for a %d KB schema", tc.name, c.defs != nil, mb, len(a)>>10)
			}
		}
	}
}

// TestDefinitionsKnownPlaces: a reference among the places given resolves
// there without reading the rest of the document (here malformed, so
// reading it finds nothing); a place outside the document, or that holds
// no object, is not used.
func TestDefinitionsKnownPlaces(t *testing.T) {
	doc := `{"components": {"schemas": {"Pod": {"properties": {"qosClass": {}}}, "Bad": }}}`
	start := strings.Index(doc, `{"properties"`)
	end := strings.Index(doc, `, "Bad"`)
	for _, tc := range []struct {
		places map[string][2]int
		want   []string
	}{
		{map[string][2]int{"#/components/schemas/Pod": {start, end}}, []string{"qosClass"}},
		{nil, nil},
		{map[string][2]int{"#/components/schemas/Pod": {start, len(doc) + 1}}, nil},
		{map[string][2]int{"#/components/schemas/Pod": {start + 1, end}}, nil}, // not an object
	} {
		defs := NewDefinitions(json.RawMessage(doc), tc.places)
		if got := outputFields(json.RawMessage(`{"$ref": "#/components/schemas/Pod"}`), defs); !slices.Equal(got, tc.want) {
			t.Errorf("with places %v: outputFields = %q, want %q", tc.places, got, tc.want)
		}
	}
}

// TestReadBudget: schemas nested in one another, each holding the rest
// (allOf in allOf, 512 deep, around 4 MB), are read into nodes up to
// readFactor times the text's size, not once per level: reading each
// skims all it holds, and walking such an 8 MB schema took 2 s before.
// The bound holds for a Definitions' document and for a tool's own
// schema.
func TestReadBudget(t *testing.T) {
	const depth = 512
	schema := strings.Repeat(`{"allOf":[`, depth) + `{"description":"` + strings.Repeat("x", 4<<20) + `"}` + strings.Repeat(`]}`, depth)
	defs := NewDefinitions(json.RawMessage(`{"$defs":{"A":`+schema+`}}`), nil)
	outputFields(json.RawMessage(`{"$ref": "#/$defs/A"}`), defs)
	read := 0
	for _, n := range defs.nodes {
		if n != nil {
			read++
		}
	}
	if read >= depth || read < readFactor {
		t.Errorf("the Definitions read %d nested schemas of %d, want from readFactor (%d) to fewer than all", read, depth, readFactor)
	}
	w := newWalker([]byte(schema), nil)
	levels := 0
	for n, _ := w.deref(place{at: span{0, int32(len(schema))}}); n != nil && len(n.same) > 0; n, _ = w.deref(place{at: n.same[0]}) {
		levels++
	}
	if levels >= depth || w.unread < 0 {
		t.Errorf("a tool's own schema was read %d levels deep, %d bytes left", levels, w.unread)
	}
	if levels < readFactor {
		t.Errorf("a tool's own schema was read only %d levels deep, want readFactor (%d) at least", levels, readFactor)
	}
}
