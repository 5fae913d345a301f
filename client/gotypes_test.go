package client_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/codemode-go/codemode/client"
	"github.com/codemode-go/codemode/contract"
	"github.com/codemode-go/codemode/drivers/quickjs"
	"github.com/codemode-go/codemode/typecheck"
)

// TestTypedToolInputItsGoTypeRefusesIsAToolValidationError: a value the
// input schema accepts but the Go type does not decode (a date that is not
// an RFC 3339 date-time) fails the call before the middleware and the
// handler run, with a ToolValidationError naming the tool and the value's
// JSON pointer, as a schema failure does.
func TestTypedToolInputItsGoTypeRefusesIsAToolValidationError(t *testing.T) {
	ctx := context.Background()
	rt := quickjsRuntime(t, quickjs.Options{InProcess: true})

	type node struct {
		Due   time.Time `json:"due"`
		Count int       `json:"count"`
	}
	type planIn struct {
		Node node `json:"node"`
	}
	var ran atomic.Int32
	plan, err := contract.NewTool("plan", "Plans a node.", func(ctx context.Context, in planIn) (string, error) {
		ran.Add(1)
		return in.Node.Due.Format(time.DateOnly), nil
	})
	if err != nil {
		t.Fatal(err)
	}
	c, err := contract.New(plan)
	if err != nil {
		t.Fatal(err)
	}
	cl := client.New(rt, c)
	counting := func(next client.ToolCaller) client.ToolCaller {
		return func(ctx context.Context, call client.ToolCall) (json.RawMessage, error) {
			ran.Add(1)
			return next(ctx, call)
		}
	}
	program := func(input string) string {
		return `export default async function ({ codemode }) {
  try {
    return JSON.stringify(await codemode.plan(` + input + `));
  } catch (e) {
    return (e instanceof ToolValidationError) + " " + e.name + ": " + e.message;
  }
}`
	}
	for _, tc := range []struct {
		name, input string
		want        string // the start of the value
		runs        int32  // middleware and handler runs
	}{
		{"a date-time", `{ node: { due: "2026-01-02T15:04:05Z", count: 1 } }`, `"2026-01-02"`, 2},
		{"a date alone", `{ node: { due: "2026-01-01", count: 1 } }`,
			`true ToolValidationError: codemode.plan input validation failed:` + "\n" + `  /node/due: got "2026-01-01", want an RFC 3339 date-time`, 0},
		{"a schema failure, for comparison", `{ node: { due: "2026-01-02T15:04:05Z", count: 1.5 } }`,
			`true ToolValidationError: codemode.plan input validation failed:` + "\n" + `  /node/count: got number, want integer`, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ran.Store(0)
			out, err := cl.Run(ctx, program(tc.input), client.RunOptions{Middleware: counting})
			if err != nil {
				t.Fatal(err)
			}
			var got string
			if out.Kind != client.Success || json.Unmarshal(out.Value, &got) != nil {
				t.Fatalf("outcome %s %s (%+v), want a string value", out.Kind, out.Value, out.Error)
			}
			if !strings.HasPrefix(got, tc.want) {
				t.Errorf("the program saw %q, want %q…", got, tc.want)
			}
			if n := ran.Load(); n != tc.runs {
				t.Errorf("the middleware and handler ran %d times, want %d", n, tc.runs)
			}
		})
	}
}

// TestTypedToolTakesUndefinedForAnUnknownMember: TypeScript lets a
// program pass undefined for a member declared unknown (a Go interface
// field without omitempty), which JSON.stringify leaves out; the checker
// and the host agree that the call is valid, and the handler receives nil.
func TestTypedToolTakesUndefinedForAnUnknownMember(t *testing.T) {
	ctx := context.Background()
	rt := quickjsRuntime(t, quickjs.Options{InProcess: true})

	type tagIn struct {
		Name  string `json:"name"`
		Extra any    `json:"extra"`
	}
	var got []tagIn
	tag, err := contract.NewTool("tag", "Tags a thing.", func(ctx context.Context, in tagIn) (string, error) {
		got = append(got, in)
		return in.Name, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	c, err := contract.New(tag)
	if err != nil {
		t.Fatal(err)
	}
	cl := client.New(rt, c)
	code := `const extra: unknown = undefined;
await codemode.tag({ name: "a", extra: undefined });
await codemode.tag({ name: "b", extra });
await codemode.tag({ name: "c", extra: null });
"done"`
	checker, err := typecheck.New(typecheck.Options{})
	switch {
	case errors.Is(err, typecheck.ErrNotInstalled) && !requireTsc():
		t.Log("no TypeScript checker:", err)
	case err != nil:
		t.Fatal(err)
	default:
		defer checker.Close()
		res, err := cl.ValidateCode(ctx, checker, code)
		if err != nil {
			t.Fatal(err)
		}
		if !res.Valid {
			t.Fatalf("the checker refuses the program:\n%s", res.Report)
		}
	}
	out, err := cl.RunCode(ctx, code, client.RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if out.Kind != client.Success || string(out.Value) != `"done"` {
		t.Fatalf("outcome %s %s (%+v), want success", out.Kind, out.Value, out.Error)
	}
	if len(got) != 3 || got[0].Extra != nil || got[1].Extra != nil || got[2].Extra != nil {
		t.Errorf("the handler got %+v, want three inputs with a nil Extra", got)
	}
}

// quickjsRuntime is a runtime of its own on QuickJS with opts, closed with
// the test.
func quickjsRuntime(t *testing.T, opts quickjs.Options) *client.Runtime {
	t.Helper()
	d := quickjs.New(opts)
	t.Cleanup(func() { _ = d.Close() })
	rt, err := client.NewRuntime(context.Background(), d)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = rt.Close() })
	return rt
}
