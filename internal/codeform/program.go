package codeform

import (
	"errors"
	"fmt"
	"strings"

	"github.com/codemode-go/codemode/internal/esbuildchild"
	"github.com/evanw/esbuild/pkg/api"
)

// ProgramFunction returns model-written code, in any form RunCode takes (a
// module with a default export, a function expression, statements whose
// last expression is the value, any of them in a Markdown fence), as one
// JavaScript expression that evaluates to an async function of a scope
// object and resolves to the code's value. names are the scope properties
// the code sees as variables: in statements and function expressions, and
// in a module (anywhere in it, its top level running on each call; a
// declaration of its own shadows a name).
// A program evaluates the expression to run another program, such as a
// saved snippet, inside its own execution: the other program's tool calls
// are then the execution's own.
//
//	js, err := codeform.ProgramFunction("await github.list_issues({})", []string{"github", "console"}, es)
//	// in the program: const run = (0, eval)(js); await run({ github, console });
//
// # Notes
//   - TypeScript is erased by esbuild in es's child process (see package
//     esbuildchild); types are not checked. When es fails (its context
//     ended, its child crashed), the error wraps es's.
//   - The code runs in strict mode, as it did as an execution's module; a
//     module's top level runs on each call, in an async function (its
//     top-level await works).
//   - It returns an error naming the first syntax error for code that does
//     not parse, and for a module that imports or exports anything but its
//     default export (a function body cannot hold them).
func ProgramFunction(code string, names []string, es *esbuildchild.Session) (string, error) {
	n := Normalize(code, names, "", es)
	const head = "export default async (" + scopeVar
	at := strings.LastIndex(n.Module, head)
	if at < 0 {
		return "", errors.New("the program has no default export to run")
	}
	body := n.Module[:at] + "return async (" + scopeVar + n.Module[at+len(head):]
	// Strict, as the code was when it ran as an execution's module (an
	// indirect eval is sloppy: this at the top level was the global
	// object, and assigning an undeclared name made a global). A module's
	// body runs in an async function, so that its top-level await works.
	module := false
	if off, _ := ExportDefault(code); off >= 0 {
		module = true
	}
	open := "(() => { \"use strict\";\n"
	if module {
		open = "(async () => { \"use strict\";\n"
	}
	r, err := es.Transform(open+body+"\n})()", api.TransformOptions{Loader: api.LoaderTS, Target: api.ES2022})
	if err != nil {
		return "", fmt.Errorf("the program could not be erased: %w", err)
	}
	if len(r.Errors) > 0 {
		e := r.Errors[0]
		if e.Location != nil {
			return "", fmt.Errorf("the program does not compile: %s (line %d)", e.Text, max(e.Location.Line-2, 1))
		}
		return "", fmt.Errorf("the program does not compile: %s", e.Text)
	}
	js := strings.TrimSuffix(strings.TrimSpace(string(r.Code)), ";")
	if module {
		// A module sees names as variables too, read from the scope on
		// each call (a snippet saved as a module reads its input as input,
		// as the checker declares it); its own top-level declarations of
		// the same names shadow them, and its top level runs on each call.
		// The names are bound around esbuild's output, not given to
		// esbuild, which would rename the module's own declarations of
		// them (function input becoming input2).
		bind := ""
		if len(names) > 0 {
			bind = "const { " + strings.Join(names, ", ") + " } = " + scopeVar + "; "
		}
		js = "(async (" + scopeVar + ") => { " + bind + "return await (await " + js + ")(" + scopeVar + "); })"
	}
	return js, nil
}
