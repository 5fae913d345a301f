package client

import (
	"context"

	"github.com/codemode-go/codemode/codetool"
	"github.com/codemode-go/codemode/internal/loglines"
	"github.com/codemode-go/codemode/internal/runctx"
)

// Execute runs code as models write it (see RunCode) with the client's
// default RunOptions (WithDefaults) and answers as the code tool does: completed with the
// program's value, its content and its console lines, or error with the
// program's error as an agent reads it (ProgramError.Text). It makes
// *Client a codetool.Runner. Errors are RunCode's (bad input, a runtime that
// failed, ctx ended), not the program's.
//
//	answer, err := cl.Execute(ctx, `await codemode.getWeather({ location: "Oslo" })`)
//	// answer.Status == codetool.StatusCompleted; answer.Value == {"temperatureC":…}
func (c *Client) Execute(ctx context.Context, code string) (codetool.Answer, error) {
	var lines loglines.Lines
	id := newExecutionID()
	opts := c.defaults
	opts.ExecutionID = id
	observe := opts.OnTelemetry
	opts.OnTelemetry = func(e Event) {
		if e.Kind == EventProgramOutput {
			lines.Add(e.Stream, e.Text)
		}
		if observe != nil {
			observe(e)
		}
	}
	if approve := runctx.ApproveFrom(ctx); approve != nil {
		opts.Approve = func(ctx context.Context, call ToolCall) error {
			return approve(ctx, call.Namespace, call.Tool, call.Input)
		}
	}
	out, err := c.RunCode(ctx, code, opts)
	if err != nil {
		return codetool.Answer{}, err
	}
	if out.Kind == ProgramFailed {
		return codetool.Answer{Status: codetool.StatusError, ExecutionID: id, Error: out.Error.Text(), Logs: lines.All()}, nil
	}
	var content = out.Content
	if len(content) == 0 {
		content = nil
	}
	return codetool.Answer{Status: codetool.StatusCompleted, ExecutionID: id, Value: out.Value, Content: content, Logs: lines.All()}, nil
}

// Environment describes where the client's programs run, for an agent
// (the executor's Description).
func (c *Client) Environment() string { return c.rt.Description() }

// WithDefaults returns a client for the same executor, contract and
// extension whose Execute runs programs with o (its ExecutionID is
// ignored: each execution gets its own): a fetch policy, limits, a tracer
// provider, an approver or a telemetry observer for the code tool's runs.
// Run and RunCode take their own options.
//
//	cl = cl.WithDefaults(client.RunOptions{Limits: client.Limits{Timeout: 10 * time.Second}})
//	tool, err := codetool.New(cl, codetool.Options{})
func (c *Client) WithDefaults(o RunOptions) *Client {
	d := *c
	d.defaults = o
	return &d
}
