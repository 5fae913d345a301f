package typegen_test

import (
	"encoding/json"
	"fmt"

	"github.com/codemode-go/codemode/internal/typegen"
)

func ExampleNamespaceDeclarations() {
	decls, err := typegen.NamespaceDeclarations(typegen.Namespace{Name: "github", Tools: []typegen.ToolDecl{{
		Name:        "create_issue",
		Description: "Open a new issue.",
		InputSchema: json.RawMessage(`{"type": "object", "properties": {"title": {"type": "string", "description": "Issue title."}},
			"required": ["title"], "additionalProperties": false}`),
		OutputSchema: json.RawMessage(`{"type": "object", "properties": {"number": {"type": "integer"}}, "required": ["number"], "additionalProperties": false}`),
	}}})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Print(decls)
	// Output:
	// interface GithubTools {
	//   /** Open a new issue. */
	//   create_issue(input: {
	//     /** Issue title. */
	//     title: string;
	//   }): Promise<{
	//     number: number;
	//   }>;
	// }
	//
	// declare const github: GithubTools;
}
