package client

import (
	"context"
	"strings"

	"github.com/codemode-go/codemode/internal/codeform"
	"github.com/codemode-go/codemode/typecheck"
)

// Validate type-checks a program against the client's complete declaration
// surface (the contract's TypeDefinitions) and the runtime's type-definition
// files, with checker (validate() has no side effects; Run never
// checks: https://github.com/torkbot/code-mode#schemas-tools-and-checking). It returns a Valid result or up to 8 diagnostics in the submitted
// source's coordinates with a report (which adds, for each unavailable namespace the program names,
// contract.Namespace.Unavailable, that it has no tools now and why). Cancelling ctx stops the check. A
// program whose brackets nest deeper than 256, or longer than a runner
// accepts (16 MiB less room for the message), is an error (a *ProgramError
// RangeError), as Run fails it, not checked.
//
//	checker, err := typecheck.New(typecheck.Options{}) // errors.Is(err, typecheck.ErrNotInstalled) says how to install
//	res, err := cl.Validate(ctx, checker, source)
//	if err == nil && !res.Valid { tellTheAgent(res.Report) }
func (c *Client) Validate(ctx context.Context, checker *typecheck.Checker, source string) (*typecheck.Result, error) {
	return c.validate(ctx, checker, source)
}

func (c *Client) validate(ctx context.Context, checker *typecheck.Checker, source string) (*typecheck.Result, error) {
	if err := checkSize(source); err != nil {
		return nil, err
	}
	if err := checkNesting(source); err != nil {
		return nil, err
	}
	files := []typecheck.File{{Name: "codemode.d.ts", Text: c.contract.TypeDefinitions(), Checker: c.contract.CheckerDeclarations()}}
	if c.declarations != "" {
		files = append(files, typecheck.File{Name: "codemode-extension.d.ts", Text: c.declarations})
	}
	rtFiles, err := c.rt.TypeDefinitionFiles(ctx)
	if err != nil {
		return nil, err
	}
	for _, f := range rtFiles {
		files = append(files, typecheck.File{Name: f.Name, Text: f.Text})
	}
	res, err := checker.Check(ctx, files, source)
	if err == nil && !res.Valid {
		res.Report += unavailableNote(c.contract, source)
	}
	return res, err
}

// ValidateCode type-checks code as models write it, in the forms RunCode
// accepts, against the same surface as Validate. Diagnostics and the report
// are in the code's own lines and columns; a fault in the wrapper RunCode
// adds (for example a function whose parameter does not fit the program
// contract) is reported at the nearest code position. In a session (the
// code tool's, see Execute) the code sees the session's bindings, typed
// any.
func (c *Client) ValidateCode(ctx context.Context, checker *typecheck.Checker, code string) (*typecheck.Result, error) {
	// The setup is left out: what it adds is declared (the contract's SDK,
	// an Extension's Declarations), and its own code is the host's.
	if err := checkSize(code); err != nil {
		return nil, err
	}
	if err := checkNesting(code); err != nil {
		return nil, err
	}
	var carry *codeform.Carry
	if s := c.sessionFor(ctx); s != nil {
		carry = &codeform.Carry{Restore: s.declarations()}
	}
	es, stopErasure := c.startErasure(ctx, Limits{})
	defer stopErasure()
	n := codeform.NormalizeCarry(code, c.scopeNames(), "", carry, es)
	if err := es.Err(); err != nil {
		return nil, erasureFailed(err)
	}
	res, err := c.validate(ctx, checker, n.Module)
	if err != nil || res.Valid {
		return res, err
	}
	out := &typecheck.Result{Diagnostics: make([]typecheck.Diagnostic, len(res.Diagnostics))}
	for i, d := range res.Diagnostics {
		if d.File == programFilename {
			d.Line, d.Column = n.Position(d.Line, d.Column)
		}
		out.Diagnostics[i] = d
	}
	out.Report = typecheck.Report(strings.Join(n.Lines, "\n"), out.Diagnostics) + unavailableNote(c.contract, code)
	return out, nil
}
