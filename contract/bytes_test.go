package contract_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/codemode-go/codemode/client"
	"github.com/codemode-go/codemode/contract"
	"github.com/codemode-go/codemode/drivers/quickjs"
)

// Blob is the input and output of the bytes tool: Go's []byte is a base64
// string in JSON and in the schema (contentEncoding base64).
type Blob struct {
	Name string `json:"name"`
	Data []byte `json:"data" jsonschema:"description=The bytes."`
}

// TestBytesCrossTheToolBoundaryAsBase64: a program passes bytes to a
// []byte tool as a base64 string and gets base64 back, on real QuickJS; a
// Uint8Array is refused before the host sees it.
func TestBytesCrossTheToolBoundaryAsBase64(t *testing.T) {
	var got [][]byte
	reverse, err := contract.NewTool("reverse", "Reverse the bytes.", func(ctx context.Context, in Blob) (Blob, error) {
		got = append(got, in.Data)
		out := make([]byte, len(in.Data))
		for i, b := range in.Data {
			out[len(out)-1-i] = b
		}
		return Blob{Name: in.Name, Data: out}, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	c, err := contract.New(reverse)
	if err != nil {
		t.Fatal(err)
	}
	if d := c.TypeDefinitions(); !strings.Contains(d, "     * The bytes.\n     * @contentEncoding base64\n     */\n    data: string;") {
		t.Fatalf("the declaration does not say data is base64:\n%s", d)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	rt, err := client.NewRuntime(ctx, quickjs.New(quickjs.Options{}))
	if err != nil {
		t.Fatal(err)
	}
	defer rt.Close()
	cl := client.New(rt, c)

	out, err := cl.RunCode(ctx, `(await codemode.reverse({ name: "b", data: "AAEC/w==" })).data`, client.RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if out.Kind != client.Success || string(out.Value) != `"/wIBAA=="` {
		t.Fatalf("outcome %+v, want the reversed bytes /wIBAA==", out)
	}
	if len(got) != 1 || string(got[0]) != "\x00\x01\x02\xff" {
		t.Fatalf("the handler got %q, want the decoded bytes", got)
	}

	out, err = cl.RunCode(ctx, `await codemode.reverse({ name: "b", data: new Uint8Array([1, 2]) })`, client.RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if out.Kind != client.ProgramFailed || out.Error.Name != "TypeError" || !strings.Contains(out.Error.Message, "input.data is not a plain object") {
		t.Fatalf("a Uint8Array argument: outcome %+v, want a TypeError naming input.data", out.Error)
	}
	out, err = cl.RunCode(ctx, `await codemode.reverse({ name: "b", data: "not base64!" })`, client.RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if out.Kind != client.ProgramFailed || out.Error.Name != "ToolValidationError" || !strings.Contains(out.Error.Message, "/data") || len(got) != 1 {
		t.Fatalf("text that is not base64: outcome %+v, want a ToolValidationError naming /data before the handler", out.Error)
	}
}
