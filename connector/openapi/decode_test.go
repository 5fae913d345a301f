package openapi

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
)

// wholeDecode is what decodeDocument stands for: kin-openapi decoding the
// whole document at once.
func wholeDecode(t testing.TB, text []byte) *openapi3.T {
	t.Helper()
	doc := &openapi3.T{}
	if err := json.Unmarshal(withoutExampleValues(text), doc); err != nil {
		t.Fatal(err)
	}
	return doc
}

// realDocuments returns the OpenAPI 3 documents of @readme/oas-examples and
// GitHub's description, as JSON text, by name; the test skips without them.
func realDocuments(t *testing.T) map[string][]byte {
	t.Helper()
	tools := filepath.Join("..", "..", ".tools", "node_modules")
	docs := map[string][]byte{}
	for _, glob := range []string{"@readme/oas-examples/3.*/json/*.json", "@readme/oas-examples/3.*/yaml/*.yaml", "@octokit/openapi/generated/api.github.com.json"} {
		files, err := filepath.Glob(filepath.Join(tools, glob))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			text, err := asJSON(data)
			if err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			docs[strings.TrimPrefix(f, tools+"/")] = text
		}
	}
	if len(docs) == 0 {
		t.Skip("@readme/oas-examples and @octokit/openapi are not installed (run scripts/test)")
	}
	return docs
}

// TestDecodeDocumentEqualsWholeDecode: decoding in pieces gives the value
// kin-openapi gives for the whole document, for every real document, and
// its skeleton is taken apart for each of them (none falls back).
func TestDecodeDocumentEqualsWholeDecode(t *testing.T) {
	for name, text := range realDocuments(t) {
		t.Run(name, func(t *testing.T) {
			if _, ok := splitDocument(text); !ok {
				t.Fatal("the document was not split")
			}
			got, _, err := decodeDocument(context.Background(), text)
			if err != nil {
				t.Fatal(err)
			}
			if want := wholeDecode(t, text); !reflect.DeepEqual(got, want) {
				t.Fatal("decoding in pieces differs from decoding the whole document")
			}
		})
	}
}

// TestDecodeDocumentFallsBackOnKeysItCannotSplit: documents whose keys
// encoding/json would read into one field twice (a repeated key, one that
// matches only case-insensitively, an escaped one) are decoded whole, to
// the same value.
func TestDecodeDocumentFallsBackOnKeysItCannotSplit(t *testing.T) {
	for _, text := range []string{
		`{"openapi":"3.0.0","paths":{"/a":{"get":{"responses":{}}}},"Paths":{"/b":{}}}`,
		`{"openapi":"3.0.0","paths":{"/a":{}},"paths":{"/b":{}}}`,
		`{"openapi":"3.0.0","components":{"schemas":{"A":{}},"Schemas":{"B":{}}}}`,
		`{"openapi":"3.0.0","components":{"schemas":{"A":{},"A":{"type":"string"}}}}`,
		`{"openapi":"3.0.0","\u0070aths":{"/a":{}}}`,
		`{"openapi":"3.0.0","paths":{"/\u0061":{}}}`,
	} {
		if _, ok := splitDocument([]byte(text)); ok {
			t.Errorf("%s was split", text)
		}
		got, _, err := decodeDocument(context.Background(), []byte(text))
		if err != nil {
			t.Fatalf("%s: %v", text, err)
		}
		if want := wholeDecode(t, []byte(text)); !reflect.DeepEqual(got, want) {
			t.Errorf("%s: decoded differently from the whole document", text)
		}
	}
}

// TestDecodeDocumentNamesThePieceInErrors: a piece kin-openapi cannot read
// fails the decode with its place in the document.
func TestDecodeDocumentNamesThePieceInErrors(t *testing.T) {
	for text, want := range map[string]string{
		`{"openapi":"3.0.0","paths":{"/a":{"get":{"parameters":7}}}}`:        `paths: "/a": `,
		`{"openapi":"3.0.0","components":{"schemas":{"A":{"type":7}}}}`:      `components: schemas: "A": `,
		`{"openapi":"3.0.0","components":{"responses":{"R":{"content":1}}}}`: `components: responses: "R": `,
	} {
		_, _, err := decodeDocument(context.Background(), []byte(text))
		if err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("%s: got %v, want an error starting %q", text, err, want)
		}
	}
}

// TestLoadStopsWhenCancelled: loading GitHub's description (seconds of
// work) with a context cancelled before or while it runs returns soon
// after with an error wrapping context.Canceled.
func TestLoadStopsWhenCancelled(t *testing.T) {
	path := filepath.Join("..", "..", ".tools", "node_modules", "@octokit", "openapi", "generated", "api.github.com.json")
	if _, err := os.Stat(path); err != nil {
		t.Skipf("@octokit/openapi is not installed (run scripts/test): %v", err)
	}
	opts := Options{Name: "github"}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, _, err := Load(ctx, path, opts); !errors.Is(err, context.Canceled) {
		t.Fatalf("an already cancelled context: got %v", err)
	}
	for _, after := range []time.Duration{50 * time.Millisecond, 300 * time.Millisecond} {
		ctx, cancel := context.WithCancel(context.Background())
		timer := time.AfterFunc(after, cancel)
		start := time.Now()
		_, _, err := Load(ctx, path, opts)
		late := time.Since(start) - after
		timer.Stop()
		cancel()
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("cancelled after %s: got %v", after, err)
		}
		// A whole load takes seconds; stopping takes the piece being
		// decoded or one stage after decoding (resolving or validating,
		// about 0.2 s each): 2 s leaves room for a loaded machine. Under
		// the race detector a whole load took about 10 s, and a load
		// cancelled at 300 ms returned 1.8 s later on a quiet machine and
		// 2.3 s later in a CI run: 5 s there.
		bound := 2 * time.Second
		if raceEnabled {
			bound = 5 * time.Second
		}
		if late > bound {
			t.Errorf("cancelled after %s, the load returned %s later (more than %s)", after, late, bound)
		}
		t.Logf("cancelled after %s: returned %s later: %v", after, late, err)
	}
}

// FuzzDecodeDocument: for any JSON text that kin-openapi decodes whole,
// decoding in pieces succeeds with the same value. (The other way round
// may differ: kin-openapi re-encodes path items and responses through
// float64 numbers, which can fail where the pieces' direct decode does
// not.)
func FuzzDecodeDocument(f *testing.F) {
	for _, s := range []string{
		`{"openapi":"3.0.0","paths":{"/a":{"get":{"responses":{"200":{"content":{"application/json":{"schema":{"type":"object","properties":{"x":{"type":"array","items":{"type":"string"}}}}}}}}}}}}`,
		`{"openapi":"3.1.0","components":{"schemas":{"A":{"allOf":[{"$ref":"#/components/schemas/B"},{"properties":{"b":true}}],"additionalProperties":{"type":"integer"}},"B":{"oneOf":[]}}}}`,
		`{"openapi":"3.0.0","components":{"responses":{"R":{"description":"d","content":{"a/b":{"schema":{"anyOf":[{"type":"string"}]}}}}},"requestBodies":{"B":{"content":{"x/y":{"schema":{"$ref":"#/x"}}}}}}}`,
		`{"openapi":"3.0.0","paths":{"x-a":1,"/p":{"post":{"requestBody":{"$ref":"#/r"},"responses":{"x-b":{},"default":{"$ref":"#/s"}}}}}}`,
		`{"openapi":"3.0.0","components":{"examples":{"e":{"value":[1,2]}},"parameters":{"p":{"name":"p","in":"query","schema":{"type":"string"}}}}}`,
		`{"openapi":"3.0.0","paths":{"/a":{"GET":{},"get":{}}}}`,
		`{"openapi":"3.0.0","components":{"schemas":{"A":{"properties":{"a":{}},"Properties":{"b":{}}}}}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, text []byte) {
		if !json.Valid(text) {
			return
		}
		want := &openapi3.T{}
		if json.Unmarshal(withoutExampleValues(text), want) != nil {
			return
		}
		got, _, err := decodeDocument(context.Background(), text)
		if err != nil {
			t.Fatalf("%s: decoded whole but not in pieces: %v", text, err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%s: decoding in pieces differs from decoding the whole document", text)
		}
	})
}
