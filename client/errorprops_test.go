package client_test

import (
	"context"
	"testing"

	"github.com/codemode-go/codemode/client"
	"github.com/codemode-go/codemode/contract"
	"github.com/codemode-go/codemode/drivers/quickjs"
)

// panickyError's ErrorProperties panics, as a method on a nil map field
// or a nil pointer receiver does.
type panickyError struct{ fields map[string]any }

func (e *panickyError) Error() string { return "upstream failed" }
func (e *panickyError) ErrorProperties() map[string]any {
	return map[string]any{"status": e.fields["status"].(int)} // panics: no status
}

// A tool's error whose ErrorProperties panics fails the call with its
// message and no properties; it ended the host's process (the method ran
// in the goroutine answering the call, outside the tool's recover).
func TestPanickingErrorPropertiesFailTheCallAlone(t *testing.T) {
	ctx := context.Background()
	rt, err := client.NewRuntime(ctx, quickjs.New(quickjs.Options{}))
	if err != nil {
		t.Fatal(err)
	}
	defer rt.Close()
	tool, err := contract.NewTool("fail", "Fails.", func(ctx context.Context, in struct{}) (struct{}, error) {
		return struct{}{}, &panickyError{}
	})
	if err != nil {
		t.Fatal(err)
	}
	c, err := contract.New(tool)
	if err != nil {
		t.Fatal(err)
	}
	out, err := client.New(rt, c).RunCode(ctx, `let m = "no"; try { await codemode.fail({}) } catch (e) { m = e.name + ": " + e.message + " " + Object.keys(e).length }; m`, client.RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if string(out.Value) != `"Error: upstream failed 0"` {
		t.Fatalf("outcome %s %s", out.Kind, out.Value)
	}
}

// brokenError's Error method panics.
type brokenError struct{}

func (brokenError) Error() string { panic("no message") }

// A tool's error whose Error method panics fails the call as a panic of
// the tool; the host reader, which formats the message, never sees it.
func TestPanickingErrorMessageFailsTheCallAlone(t *testing.T) {
	ctx := context.Background()
	rt, err := client.NewRuntime(ctx, quickjs.New(quickjs.Options{}))
	if err != nil {
		t.Fatal(err)
	}
	defer rt.Close()
	tool, err := contract.NewTool("fail", "Fails.", func(ctx context.Context, in struct{}) (struct{}, error) {
		return struct{}{}, brokenError{}
	})
	if err != nil {
		t.Fatal(err)
	}
	c, err := contract.New(tool)
	if err != nil {
		t.Fatal(err)
	}
	cl := client.New(rt, c)
	out, err := cl.RunCode(ctx, `let m = "no"; try { await codemode.fail({}) } catch (e) { m = e.message }; m`, client.RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if string(out.Value) != `"tool codemode.fail panicked: no message"` {
		t.Fatalf("outcome %s %s", out.Kind, out.Value)
	}
	if out, err := cl.RunCode(ctx, `1`, client.RunOptions{}); err != nil || out.Kind != client.Success {
		t.Fatalf("the next program: %+v, %v", out, err)
	}
}
