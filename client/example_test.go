package client_test

import (
	"context"
	"fmt"
	"log"
	"strings"

	"github.com/codemode-go/codemode/client"
	"github.com/codemode-go/codemode/contract"
	"github.com/codemode-go/codemode/drivers/quickjs"
)

// Sum is the example tool's input.
type Sum struct {
	A float64 `json:"a"`
	B float64 `json:"b"`
}

// Total is the example tool's output.
type Total struct {
	Sum float64 `json:"sum"`
}

// exampleClient binds a QuickJS runtime to a contract with one tool, add.
func exampleClient(ctx context.Context) (*client.Client, *client.Runtime) {
	add, err := contract.NewTool("add", "Add two numbers.", func(ctx context.Context, in Sum) (Total, error) {
		return Total{Sum: in.A + in.B}, nil
	})
	if err != nil {
		log.Fatal(err)
	}
	c, err := contract.New(add)
	if err != nil {
		log.Fatal(err)
	}
	rt, err := client.NewRuntime(ctx, quickjs.New(quickjs.Options{}))
	if err != nil {
		log.Fatal(err)
	}
	return client.New(rt, c), rt
}

// A program is a module whose default export receives the scope; what it
// appends with result is the outcome's content.
func ExampleClient_Run() {
	ctx := context.Background()
	cl, rt := exampleClient(ctx)
	defer rt.Close()

	out, err := cl.Run(ctx, `export default async function ({ codemode, result }: AgentProgramScope) {
  const { sum } = await codemode.add({ a: 2, b: 3 });
  result.appendText("2 + 3 = " + sum);
}`, client.RunOptions{})
	if err != nil {
		log.Fatal(err) // the runtime failed, or ctx ended: not the program's fault
	}
	fmt.Println(out.Kind, out.Content[0].Text)
	// Output: success 2 + 3 = 5
}

// Code as models write it: bare statements whose last expression is the
// value (Outcome.Value, JSON). A tool input that breaks its schema fails the program with a
// ToolValidationError naming the property.
func ExampleClient_RunCode() {
	ctx := context.Background()
	cl, rt := exampleClient(ctx)
	defer rt.Close()

	out, err := cl.RunCode(ctx, `(await codemode.add({ a: 1, b: 41 })).sum`, client.RunOptions{})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(out.Kind, string(out.Value))

	out, err = cl.RunCode(ctx, `await codemode.add({ a: 1, b: "41" })`, client.RunOptions{})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(out.Kind, out.Error.Name)
	// Output:
	// success 42
	// program-failed ToolValidationError
}

// Console output is not in the Outcome: OnTelemetry receives it as the
// program writes it (EventProgramOutput), and Execute, which answers as
// the code tool does, collects it as the answer's Logs.
func ExampleRunOptions_consoleOutput() {
	ctx := context.Background()
	cl, rt := exampleClient(ctx)
	defer rt.Close()

	var output strings.Builder
	_, err := cl.RunCode(ctx, `console.log("adding"); console.error("careful"); 1`, client.RunOptions{
		OnTelemetry: func(e client.Event) {
			if e.Kind == client.EventProgramOutput {
				fmt.Fprintf(&output, "%s: %s", e.Stream, e.Text)
			}
		},
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Print(output.String())

	answer, err := cl.Execute(ctx, `console.log("adding"); console.error("careful"); 1`)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%q\n", answer.Logs)
	// Output:
	// stdout: adding
	// stderr: careful
	// ["adding" "[stderr] careful"]
}
