package typecheck_test

import (
	"context"
	"fmt"
	"log"

	"github.com/codemode-go/codemode/typecheck"
)

// Check compiles a program against declarations and reports what the
// TypeScript compiler says, with the line and column of each error.
func ExampleChecker_Check() {
	checker, err := typecheck.New(typecheck.Options{})
	if err != nil {
		log.Fatal(err) // wraps typecheck.ErrNotInstalled without a TypeScript compiler (scripts/test installs one)
	}
	defer checker.Close()
	decls := []typecheck.File{{Name: "tools.d.ts", Text: "declare function add(a: number, b: number): number;\n"}}
	res, err := checker.Check(context.Background(), decls, "export const x: string = add(1, 2);\n")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Valid, "TS"+fmt.Sprint(res.Diagnostics[0].Code))
	// Output: false TS2322
}
