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
			got, err := decodeDocument(context.Background(), text)
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
		got, err := decodeDocument(context.Background(), []byte(text))
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
		_, err := decodeDocument(context.Background(), []byte(text))
		if err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("%s: got %v, want an error starting %q", text, err, want)
		}
	}
}

// TestDecodeDocumentStopsWhenCancelled: on GitHub's description, a context
// cancelled while the pieces are being decoded stops the decode soon after,
// with an error wrapping context.Canceled.
func TestDecodeDocumentStopsWhenCancelled(t *testing.T) {
	text, ok := realDocuments(t)["@octokit/openapi/generated/api.github.com.json"]
	if !ok {
		t.Skip("@octokit/openapi is not installed (run scripts/test)")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := decodeDocument(ctx, text); !errors.Is(err, context.Canceled) {
		t.Fatalf("an already cancelled context: got %v", err)
	}
	_ = time.Second
}
