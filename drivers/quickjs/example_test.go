package quickjs_test

import (
	"context"
	"fmt"
	"log"
	"time"

	"github.com/codemode-go/codemode/client"
	"github.com/codemode-go/codemode/contract"
	"github.com/codemode-go/codemode/drivers/quickjs"
)

// A QuickJS runtime runs each program in its own sandboxed engine: a
// program that runs past its deadline fails alone, with an error naming the
// limit, and the runtime carries on.
func ExampleNew() {
	ctx := context.Background()
	rt, err := client.NewRuntime(ctx, quickjs.New(quickjs.Options{Timeout: 200 * time.Millisecond, MemoryLimit: 32 << 20}))
	if err != nil {
		log.Fatal(err)
	}
	defer rt.Close()
	c, err := contract.New() // no tools
	if err != nil {
		log.Fatal(err)
	}
	cl := client.New(rt, c)

	out, err := cl.RunCode(ctx, `while (true) {}`, client.RunOptions{})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(out.Kind, out.Error.Name)

	out, err = cl.RunCode(ctx, `typeof process + " " + typeof require + " " + [1, 2, 3].map((n) => n * n).join(",")`, client.RunOptions{})
	if err != nil {
		log.Fatal(err)
	}
	text, _ := out.ValueText()
	fmt.Println(out.Kind, text)
	// Output:
	// program-failed TimeoutError
	// success undefined undefined 1,4,9
}
