package contract_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log"

	"github.com/codemode-go/codemode/contract"
)

// NamespaceDeclarations prints one namespace, or some of its tools, alone:
// what a discovery answer (describe) shows for a method.
func ExampleContract_NamespaceDeclarations() {
	unused := func(context.Context, json.RawMessage) (json.RawMessage, error) { return nil, nil }
	create, err := contract.NewForeignTool("create_issue", "Open a new issue.",
		json.RawMessage(`{"type": "object", "properties": {"title": {"type": "string"}}, "required": ["title"]}`), nil, unused)
	if err != nil {
		log.Fatal(err)
	}
	list, err := contract.NewForeignTool("list_issues", "List issues.", nil, nil, unused)
	if err != nil {
		log.Fatal(err)
	}
	c, err := contract.NewNamespaced(contract.Namespace{Name: "github", Tools: []*contract.Tool{create, list}})
	if err != nil {
		log.Fatal(err)
	}
	decls, err := c.NamespaceDeclarations("github", "create_issue")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Print(decls)
	_, err = c.NamespaceDeclarations("github", "close_issue")
	fmt.Println(err)
	// Output:
	// interface GithubTools {
	//   /** Open a new issue. */
	//   create_issue(input: {
	//     title: string;
	//     [key: string]: unknown;
	//   }): Promise<any>;
	// }
	//
	// declare const github: GithubTools;
	// contract: namespace github has no tool close_issue
}
