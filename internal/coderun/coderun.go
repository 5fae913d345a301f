// Package coderun is the code tool's call, shared by codetool.Tool.Call and
// the MCP server (package mcpserver): the program in the tool's arguments,
// then its type check, its approval and its run. It names no codetool type,
// so that codetool can use it.
package coderun

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"

	"github.com/codemode-go/codemode/internal/runctx"
	"github.com/codemode-go/codemode/typecheck"
)

// Code returns the program in the code tool's arguments ({"code": "…"}), or
// reason, what is wrong with them (codetool.ArgumentsError's Reason): not a
// JSON object, code missing, not a string or empty, or a property other than
// code.
func Code(argumentsJSON json.RawMessage) (code, reason string) {
	dec := json.NewDecoder(bytes.NewReader(argumentsJSON))
	dec.DisallowUnknownFields()
	var in struct {
		Code json.RawMessage `json:"code"`
	}
	if err := dec.Decode(&in); err != nil {
		return "", "not a JSON object with only the property code (" + err.Error() + ")"
	}
	if dec.More() {
		return "", "text after the JSON object"
	}
	if in.Code == nil {
		return "", `"code" is missing`
	}
	if err := json.Unmarshal(in.Code, &code); err != nil || string(in.Code) == "null" {
		return "", `"code" is not a string`
	}
	if strings.TrimSpace(code) == "" {
		return "", `"code" is empty`
	}
	return code, ""
}

// Runner is what Run needs of a codetool.Runner whose answers are A.
type Runner[A any] interface {
	ValidateCode(ctx context.Context, checker *typecheck.Checker, code string) (*typecheck.Result, error)
	Execute(ctx context.Context, code string) (A, error)
}

// Run type-checks code with checker (when not nil), has it approved when
// the front end asks for that (runctx.WithProgramApprover: codetool's
// Options.ApproveProgram, or the MCP server's ApprovePrograms) and runs it
// with r. A program that does not type-check, or that was not approved, is
// refused(message), an error answer, and starts nothing; a checker that
// fails is ignored (the program runs unchecked: a broken checker must not
// stop programs). Errors are r's, or ctx's.
func Run[A any](ctx context.Context, r Runner[A], checker *typecheck.Checker, code string, refused func(message string) A) (A, error) {
	var none A
	if checker != nil {
		res, err := r.ValidateCode(ctx, checker, code)
		if err != nil && ctx.Err() != nil {
			return none, err
		}
		if err == nil && !res.Valid {
			return refused(notTypeChecked + "\n\n" + res.Report), nil
		}
	}
	if approve := runctx.ProgramApproverFrom(ctx); approve != nil {
		if err := approve(ctx, code); err != nil {
			if ctx.Err() != nil {
				return none, err
			}
			return refused(notApproved + " " + err.Error()), nil
		}
	}
	return r.Execute(ctx, code)
}

// notApproved starts the Error of an answer for a program a person did
// not approve.
const notApproved = "The program was not approved, so nothing ran:"

// notTypeChecked starts the Error of an answer for a program that does not
// type-check.
const notTypeChecked = "The program does not type-check, so nothing ran. Fix these errors and send it again:"
