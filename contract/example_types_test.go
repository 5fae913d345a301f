package contract_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log"

	"github.com/codemode-go/codemode/contract"
)

// Folder is a recursive type, as API types often are.
type Folder struct {
	Name    string            `json:"name"`
	Folders []*Folder         `json:"folders"`
	Owner   *string           `json:"owner"`
	Labels  map[string]string `json:"labels,omitempty"`
	Extra   any               `json:"extra,omitempty"`
}

// ExampleNewTool_goTypes shows the Go types a tool takes as they are: a
// recursive type is a named declaration, a map a Record, any unknown, a
// pointer field without omitempty T | null, and a nil slice is sent as [].
func ExampleNewTool_goTypes() {
	tree, err := contract.NewTool("getFolder", "A folder and everything in it.",
		func(ctx context.Context, in struct{}) (*Folder, error) {
			return &Folder{Name: "root", Folders: []*Folder{{Name: "empty"}}}, nil
		})
	if err != nil {
		log.Fatal(err)
	}
	c, err := contract.New(tree)
	if err != nil {
		log.Fatal(err)
	}
	decls, err := c.NamespaceDeclarations(contract.DefaultNamespace)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Print(decls)
	out, err := tree.Call(context.Background(), json.RawMessage(`{}`))
	fmt.Println(string(out), err)
	// Output:
	// declare namespace CodemodeTypes {
	//   interface Folder {
	//     name: string;
	//     folders: CodemodeTypes.Folder[];
	//     owner: string | null;
	//     labels?: Record<string, string>;
	//     extra?: unknown;
	//   }
	// }
	//
	// interface Tools {
	//   /** A folder and everything in it. */
	//   getFolder(input: Record<string, never>): Promise<CodemodeTypes.Folder | null>;
	// }
	//
	// declare const codemode: Tools;
	// {"name":"root","folders":[{"name":"empty","folders":[],"owner":null}],"owner":null} <nil>
}
