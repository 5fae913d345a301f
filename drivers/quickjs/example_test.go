package quickjs_test

import (
	"context"
	"errors"
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

// A CPU time limit bounds a program's own work, not its waits: here the
// busy loop is stopped after 200 ms of CPU time, long before its deadline,
// and errors.Is tells that limit from the deadline.
func ExampleNew_cpuTime() {
	ctx := context.Background()
	rt, err := client.NewRuntime(ctx, quickjs.New(quickjs.Options{}))
	if err != nil {
		log.Fatal(err)
	}
	defer rt.Close()
	c, err := contract.New() // no tools
	if err != nil {
		log.Fatal(err)
	}
	cl := client.New(rt, c)

	limits := client.Limits{Timeout: time.Minute, CPUTime: 200 * time.Millisecond}
	out, err := cl.RunCode(ctx, `for (;;) {}`, client.RunOptions{Limits: limits})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(out.Kind, out.Error.Name, errors.Is(out.Error, client.ErrCPUTimeLimit))
	// Output:
	// program-failed TimeoutError true
}
