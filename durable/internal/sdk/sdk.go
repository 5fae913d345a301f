// Package sdk holds the durable SDK: the scope setup that gives a durable
// run's codemode namespace its journaled step and run (src/sdk.ts, where
// the protocol with the journal is described), bundled by esbuild into
// one line of JavaScript (sdk.js).
//
// Edit src/sdk.ts, then run `go generate ./durable/internal/sdk` and commit
// sdk.js; TestSetupIsFresh fails while the committed bundle is stale.
package sdk

import (
	_ "embed"
	"fmt"
	"os"
	"strings"

	"github.com/evanw/esbuild/pkg/api"
)

//go:generate go run ./generate

// Setup is the bundled SDK: a JavaScript function expression, on one line,
// that takes the program's scope and returns it with the journaled
// codemode.step and codemode.run.
//
//go:embed sdk.js
var Setup string

// Build erases and minifies the TypeScript source at path into the text
// Setup holds, or returns an error listing esbuild's messages.
func Build(path string) (string, error) {
	src, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	r := api.Transform(string(src), api.TransformOptions{Loader: api.LoaderTS, Target: api.ES2020, MinifyWhitespace: true, Charset: api.CharsetUTF8, LegalComments: api.LegalCommentsNone})
	if len(r.Errors) > 0 {
		var msgs []string
		for _, m := range r.Errors {
			where := ""
			if m.Location != nil {
				where = fmt.Sprintf("%s:%d:%d: ", path, m.Location.Line, m.Location.Column)
			}
			msgs = append(msgs, where+m.Text)
		}
		return "", fmt.Errorf("bundling the durable SDK: %s", strings.Join(msgs, "; "))
	}
	js := strings.TrimSuffix(strings.TrimSpace(string(r.Code)), ";")
	if strings.Contains(js, "\n") {
		return "", fmt.Errorf("bundling the durable SDK: the setup is not one line (a template literal holding a newline?)")
	}
	return js, nil
}
