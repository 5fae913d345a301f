package client_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/codemode-go/codemode/client"
	"github.com/codemode-go/codemode/codetool"
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
	rt := quickjsRuntime(t, quickjs.Options{})
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
	rt := quickjsRuntime(t, quickjs.Options{})
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

// quotaError is a Go tool's error with properties (errname.Data).
type quotaError struct{ limit int }

func (e *quotaError) Error() string     { return fmt.Sprintf("quota of %d calls exceeded", e.limit) }
func (e *quotaError) ErrorName() string { return "QuotaError" }
func (e *quotaError) ErrorProperties() map[string]any {
	return map[string]any{"limit": e.limit, "retryAfterSeconds": 30}
}

// TestUncaughtErrorReportCarriesItsProperties: a tool's error with
// properties that the program does not catch keeps them in the final
// report (ProgramError.Properties, Text and the code tool's answer), as
// does a program's own error with properties.
func TestUncaughtErrorReportCarriesItsProperties(t *testing.T) {
	tool, err := contract.NewTool("getCustomer", "One customer.", func(ctx context.Context, in struct {
		ID string `json:"id"`
	}) (struct{}, error) {
		return struct{}{}, &quotaError{limit: 100}
	})
	if err != nil {
		t.Fatal(err)
	}
	c, err := contract.New(tool)
	if err != nil {
		t.Fatal(err)
	}
	rt := quickjsRuntime(t, quickjs.Options{Timeout: 5 * time.Second})
	cl := client.New(rt, c)
	for _, tc := range []struct {
		name, code, props string
	}{
		{"a tool's error", "const c = 1;\nawait codemode.getCustomer({ id: 'quota' });", `{"limit":100,"retryAfterSeconds":30}`},
		{"a program's error", "const e = new Error('mine');\nObject.assign(e, { code: 'E1', fn() {} });\nthrow e;", `{"code":"E1"}`},
		{"an error without properties", "const a = 1;\nthrow new Error('plain');", ``},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, err := cl.RunCode(context.Background(), tc.code, client.RunOptions{})
			if err != nil || out.Kind != client.ProgramFailed {
				t.Fatalf("outcome %+v, %v", out, err)
			}
			if string(out.Error.Properties) != tc.props {
				t.Fatalf("properties %s, want %s", out.Error.Properties, tc.props)
			}
			lines := strings.Split(out.Error.Text(), "\n")
			want := []string{out.Error.Error(), tc.props}
			if tc.props == "" {
				want = want[:1]
			}
			if len(lines) < len(want)+1 || strings.Join(lines[:len(want)], "\n") != strings.Join(want, "\n") || !strings.HasPrefix(lines[len(want)], "  at agent.ts:") {
				t.Fatalf("text:\n%s\nwant it to begin with %q and the position", out.Error.Text(), want)
			}
			answer, err := cl.Execute(context.Background(), tc.code)
			if err != nil || answer.Status != codetool.StatusError || answer.Error != out.Error.Text() {
				t.Fatalf("answer %+v, %v; want the error %q", answer, err, out.Error.Text())
			}
		})
	}
}

// repoMissing is a Go tool error that programs see as a NotFoundError
// carrying the repository asked for.
type repoMissing struct{ repo string }

func (e *repoMissing) Error() string     { return "no repository " + e.repo }
func (e *repoMissing) ErrorName() string { return "NotFoundError" }
func (e *repoMissing) ErrorProperties() map[string]any {
	return map[string]any{"repo": e.repo}
}

// A Go tool that declares its error (Tool.WithErrors): a program that
// narrows the caught error by its name and reads the declared property
// type-checks with the real compiler and runs, getting the handler's
// values; one that reads a property the error does not declare is
// refused by the checker.
func TestDeclaredToolErrorsCheckAndRun(t *testing.T) {
	checker := realChecker(t)
	ctx := context.Background()
	type in struct {
		Repo string `json:"repo"`
	}
	tool, err := contract.NewTool("getRepo", "Get a repository.", func(ctx context.Context, in in) (struct{}, error) {
		return struct{}{}, &repoMissing{repo: in.Repo}
	})
	if err != nil {
		t.Fatal(err)
	}
	props, err := contract.SchemaFor[in]()
	if err != nil {
		t.Fatal(err)
	}
	tool, err = tool.WithErrors(contract.ToolError{Name: "NotFoundError", Description: "No such repository.", Properties: props})
	if err != nil {
		t.Fatal(err)
	}
	c, err := contract.New(tool)
	if err != nil {
		t.Fatal(err)
	}
	cl := client.New(quickjsRuntime(t, quickjs.Options{}), c)
	good := `try {
  await codemode.getRepo({ repo: "a/b" });
  return "found";
} catch (e) {
  if (e instanceof Error && e.name === "NotFoundError") return "missing " + (e as NotFoundError).repo;
  throw e;
}`
	res, err := cl.ValidateCode(ctx, checker, good)
	if err != nil || !res.Valid {
		t.Fatalf("ValidateCode: %v\n%+v", err, res)
	}
	out, err := cl.RunCode(ctx, good, client.RunOptions{})
	if err != nil || out.Kind != client.Success || string(out.Value) != `"missing a/b"` {
		t.Fatalf("RunCode: %v %+v", err, out)
	}
	bad := `try { await codemode.getRepo({ repo: "a/b" }); } catch (e) { return (e as NotFoundError).status; }`
	res, err = cl.ValidateCode(ctx, checker, bad)
	if err != nil || res.Valid || !strings.Contains(res.Report, "status") {
		t.Fatalf("ValidateCode of a property not declared: %v\n%+v", err, res)
	}
}
