package contract_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log"
	"strings"

	"github.com/invopop/jsonschema"

	"github.com/codemode-go/codemode/contract"
)

// CityQuery is the input of the example's lookup tool.
type CityQuery struct {
	City string `json:"city" jsonschema:"description=City name."`
	Days int    `json:"days,omitempty" jsonschema:"minimum=1,maximum=7,description=Forecast length in days."`
}

// Forecast is the output of the example's lookup tool.
type Forecast struct {
	City  string    `json:"city"`
	Highs []float64 `json:"highs" jsonschema:"description=Daily highs in degrees Celsius."`
}

func ExampleNewTool() {
	forecast, err := contract.NewTool("getForecast", "Daily forecast for a city.",
		func(ctx context.Context, in CityQuery) (Forecast, error) {
			if in.Days == 0 {
				in.Days = 1
			}
			return Forecast{City: in.City, Highs: make([]float64, in.Days)}, nil
		})
	if err != nil {
		log.Fatal(err)
	}
	c, err := contract.New(forecast)
	if err != nil {
		log.Fatal(err)
	}
	// TypeDefinitions declares the whole program scope; this is the tool's part.
	decls, err := c.NamespaceDeclarations("codemode", "getForecast")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Print(decls)

	// The host validates every call against the schemas.
	out, err := forecast.Call(context.Background(), json.RawMessage(`{"city":"Lyon","days":2}`))
	fmt.Println(string(out), err)
	_, err = forecast.Call(context.Background(), json.RawMessage(`{"city":"Lyon","days":9}`))
	var tv *contract.ValidationError
	if errors.As(err, &tv) {
		fmt.Println(tv.Phase, strings.Join(tv.Lines, "; "))
	}
	// Output:
	// interface Tools {
	//   /** Daily forecast for a city. */
	//   getForecast(input: {
	//     /** City name. */
	//     city: string;
	//     /**
	//      * Forecast length in days.
	//      * @minimum 1
	//      * @maximum 7
	//      */
	//     days?: number;
	//   }): Promise<{
	//     city: string;
	//     /** Daily highs in degrees Celsius. */
	//     highs: number[];
	//   }>;
	// }
	//
	// declare const codemode: Tools;
	// {"city":"Lyon","highs":[0,0]} <nil>
	// input /days: maximum: got 9, want 7
}

// OrderPlaced is the example program input; "type" is a const declared
// with JSONSchemaExtend, since invopop/jsonschema drops a const= tag.
type OrderPlaced struct {
	Type    string `json:"type"`
	OrderID string `json:"orderId" jsonschema:"description=The order that was placed."`
}

// JSONSchemaExtend makes "type" the string const "order.placed".
func (OrderPlaced) JSONSchemaExtend(s *jsonschema.Schema) {
	p, _ := s.Properties.Get("type")
	p.Const = "order.placed"
	p.Type = "string"
}

// OrderRef is the input of the example's lookup tool.
type OrderRef struct {
	OrderID string `json:"orderId"`
}

// OrderStatus is the output of the example's lookup tool.
type OrderStatus struct {
	Status string `json:"status" jsonschema:"enum=pending,enum=shipped"`
}

func ExampleContract_WithInput() {
	input, err := contract.SchemaFor[OrderPlaced]()
	if err != nil {
		log.Fatal(err)
	}
	status, err := contract.NewTool("orderStatus", "Shipping status of an order.",
		func(ctx context.Context, in OrderRef) (OrderStatus, error) {
			return OrderStatus{Status: "pending"}, nil
		})
	if err != nil {
		log.Fatal(err)
	}
	c, err := contract.New(status)
	if err != nil {
		log.Fatal(err)
	}
	c, err = c.WithInput(input) // programs also receive input
	if err != nil {
		log.Fatal(err)
	}
	decls := c.TypeDefinitions()
	fmt.Print(decls[strings.Index(decls, "interface AgentProgramScope"):])

	// Every run's input is checked before anything runs.
	raw, err := c.ValidateInput(OrderPlaced{Type: "order.placed", OrderID: "A-1"})
	fmt.Println(string(raw), err)
	_, err = c.ValidateInput(OrderPlaced{Type: "order.cancelled", OrderID: "A-1"})
	fmt.Println(err)
	// Output:
	// interface AgentProgramScope {
	//   readonly input: {
	//     readonly type: "order.placed";
	//     /** The order that was placed. */
	//     readonly orderId: string;
	//   };
	//   readonly codemode: Tools;
	//   readonly console: CodeModeConsole;
	//   readonly result: CodeModeResult;
	// }
	//
	// type AgentProgram = (scope: AgentProgramScope) => unknown;
	// {"type":"order.placed","orderId":"A-1"} <nil>
	// program input validation failed:
	//   /type: value must be 'order.placed'
}

// Annotations tell an approval policy, and the agent, how a tool behaves.
func ExampleTool_WithAnnotations() {
	remove, err := contract.NewRawTool("removeFile", "Delete a file.",
		json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}},"required":["path"],"additionalProperties":false}`),
		json.RawMessage(`{"type":"null"}`),
		func(ctx context.Context, input json.RawMessage) (json.RawMessage, error) {
			return json.RawMessage(`null`), nil
		})
	if err != nil {
		log.Fatal(err)
	}
	yes, no := true, false
	remove = remove.WithAnnotations(contract.Annotations{Destructive: &yes, Idempotent: &yes, OpenWorld: &no})
	c, err := contract.New(remove)
	if err != nil {
		log.Fatal(err)
	}
	decls, err := c.NamespaceDeclarations("codemode", "removeFile")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Print(decls)
	// Output:
	// interface Tools {
	//   /**
	//    * Delete a file.
	//    * @destructive
	//    * @idempotent
	//    * @openWorld false
	//    */
	//   removeFile(input: {
	//     path: string;
	//   }): Promise<null>;
	// }
	//
	// declare const codemode: Tools;
}

// Every contract's codemode namespace has code mode's SDK beside its tools:
// codemode.search and codemode.describe find and declare tools, and
// codemode.step marks work whose value a recording runner keeps.
func ExampleNew_sdk() {
	c, err := contract.New()
	if err != nil {
		log.Fatal(err)
	}
	for _, line := range strings.Split(c.TypeDefinitions(), "\n") {
		if strings.Contains(line, "): Promise<") {
			fmt.Println(strings.TrimSpace(line))
		}
	}
	// Output:
	// search(query: string): Promise<SearchOutput>;
	// describe(target: string): Promise<DescribeOutput>;
	// step<T>(name: string, fn: () => T | Promise<T>): Promise<T>;
}

// notFound is a Go tool error that programs see as a NotFoundError
// carrying the repository asked for (package client's doc: ErrorName and
// ErrorProperties).
type notFound struct{ repo string }

func (e *notFound) Error() string     { return "no repository " + e.repo }
func (e *notFound) ErrorName() string { return "NotFoundError" }
func (e *notFound) ErrorProperties() map[string]any {
	return map[string]any{"repo": e.repo}
}

// WithErrors declares the errors a tool's calls may reject with: the agent
// sees each as an interface and the tool's JSDoc names it.
func ExampleTool_WithErrors() {
	type repoInput struct {
		Repo string `json:"repo"`
	}
	type repoOutput struct {
		Stars int `json:"stars"`
	}
	getRepo, err := contract.NewTool("getRepo", "Get a repository.",
		func(ctx context.Context, in repoInput) (repoOutput, error) {
			return repoOutput{}, &notFound{repo: in.Repo}
		})
	if err != nil {
		log.Fatal(err)
	}
	type notFoundProps struct {
		Repo string `json:"repo" jsonschema:"description=The repository asked for."`
	}
	props, err := contract.SchemaFor[notFoundProps]()
	if err != nil {
		log.Fatal(err)
	}
	getRepo, err = getRepo.WithErrors(contract.ToolError{
		Name:        "NotFoundError",
		Description: "The repository does not exist, or the token cannot see it.",
		Properties:  props,
	})
	if err != nil {
		log.Fatal(err)
	}
	c, err := contract.New(getRepo)
	if err != nil {
		log.Fatal(err)
	}
	decls, err := c.NamespaceDeclarations(contract.DefaultNamespace, "getRepo")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Print(decls)
	_, err = getRepo.WithErrors(contract.ToolError{Name: "TypeError", Description: "Never."})
	fmt.Println(err)
	// Output:
	// interface Tools {
	//   /**
	//    * Get a repository.
	//    * @throws {NotFoundError} The repository does not exist, or the token cannot see it.
	//    */
	//   getRepo(input: {
	//     repo: string;
	//   }): Promise<{
	//     stars: number;
	//   }>;
	// }
	//
	// /**
	//  * The repository does not exist, or the token cannot see it.
	//  *
	//  * Not a class: tell it by `e instanceof Error && e.name === "NotFoundError"`, then read it as `e as NotFoundError`.
	//  */
	// interface NotFoundError extends Error {
	//   readonly name: "NotFoundError";
	//   /** The repository asked for. */
	//   readonly repo: string;
	// }
	//
	// declare const codemode: Tools;
	// contract: tool getRepo: typegen: codemode.getRepo.errors.TypeError: keyword "name": error name TypeError is JavaScript's or code mode's own
}
