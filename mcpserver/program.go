package mcpserver

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/codemode-go/codemode/internal/runctx"
	"github.com/codemode-go/codemode/internal/termtext"
)

// programInput is the input request id of a program's approval asked in a
// result (SEP-2322).
const programInput = "program"

// maxProgramShown bounds the program text a person is asked about, in
// characters: a longer program is refused rather than shown cut.
const maxProgramShown = 20000

// programDigest identifies the program a person approved: the code that
// runs and what they were shown of it (a saved program's code, which the
// code that runs only names).
func programDigest(code, shown string) string {
	sum := sha256.Sum256([]byte(code + "\x00" + shown))
	return hex.EncodeToString(sum[:])
}

// programText is a program as a person is asked about it: the lines
// JavaScript reads (a carriage return, U+2028 and U+2029 end one, as "\n"
// does), their characters that hide or reorder text escaped
// (termtext.Lines). Shown raw, a statement after U+2028 read as part of a
// comment's line, and a right-to-left override reordered a line.
func programText(code string) string {
	return strings.Join(termtext.Lines(code), "\n")
}

// programQuestion is what the person is asked about shown (programText).
func programQuestion(shown string) *mcp.ElicitParams {
	return &mcp.ElicitParams{
		Message:         "A program wants to run:\n\n" + shown + "\n\nAccept to run it (calls that need approval are still asked about one by one); decline to refuse it.",
		RequestedSchema: map[string]any{"type": "object", "properties": map[string]any{}},
	}
}

// programGate applies Options.ApprovePrograms to one call that would run
// code (shown is what the person sees: the program, or a saved program's
// code and arguments), before the program takes a turn. It returns ctx
// for the run, or an answer that ends the call: a refusal, or, for clients
// that are asked in results, the question.
func (s *server) programGate(ctx context.Context, req *mcp.CallToolRequest, code, shown string) (context.Context, *mcp.CallToolResult) {
	if !s.opts.ApprovePrograms {
		return ctx, nil
	}
	// The digest signs the text shown as it is: escaped, two texts can
	// read alike (a right-to-left override and the six characters \u202e).
	digest := programDigest(code, shown)
	shown = programText(shown)
	switch {
	case !s.elicits(req):
		return ctx, textResult(true, "This server runs a program only after a person approved it, and this client cannot ask them (it did not declare elicitation); nothing ran.")
	case len(shown) > maxProgramShown:
		return ctx, textResult(true, fmt.Sprintf("This server runs a program only after a person approved it, and this one (%d characters) is too long to show them whole; nothing ran. Send a shorter program.", len(shown)))
	case !multiRoundTrip(req):
		// Asked before the program takes a turn: a person's decision holds
		// none.
		if err := s.askProgram(req, shown)(ctx, code); err != nil {
			return ctx, textResult(true, "The program was not approved, so nothing ran: "+err.Error())
		}
		return ctx, nil
	}
	if req.Params.RequestState == "" {
		s.opts.Logger.Info("program approval asked")
		return ctx, &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{programInput: programQuestion(shown)},
			RequestState: s.signState(req, approvalState{Program: digest})}
	}
	st, ok := s.verify(req, req.Params.RequestState)
	if !ok || st.Program != digest {
		return ctx, textResult(true, "The program approval's request state does not verify for this program (it was not issued by this server for this session and program); nothing ran.")
	}
	action := "cancel"
	if r, ok := req.Params.InputResponses[programInput].(*mcp.ElicitResult); ok {
		action = r.Action
	}
	if action != "accept" {
		s.opts.Logger.Info("program refused", "action", action)
		return ctx, textResult(true, fmt.Sprintf("The person did not approve the program (%s); nothing ran.", action))
	}
	return ctx, nil
}

// askProgram asks the person about a program by an elicitation request
// (protocols before 2026-07-28).
func (s *server) askProgram(req *mcp.CallToolRequest, shown string) runctx.ProgramApprover {
	return func(ctx context.Context, _ string) error {
		ectx, cancel := context.WithTimeout(ctx, s.opts.ElicitTimeout)
		defer cancel()
		res, err := req.Session.Elicit(ectx, programQuestion(shown))
		switch {
		case err != nil:
			return fmt.Errorf("the person was not reached (%w)", err)
		case res.Action != "accept":
			return errors.New("the person did not approve it (" + res.Action + ")")
		}
		s.opts.Logger.Info("program approved")
		return nil
	}
}
