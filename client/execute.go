package client

import (
	"context"
	"errors"
	"strings"
	"time"

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
	opts.Session = c.sessionFor(ctx)
	out, err := c.RunCode(ctx, code, opts)
	if errors.Is(err, ErrSessionEnded) {
		return codetool.Answer{Status: codetool.StatusError, ExecutionID: id, Error: err.Error()}, nil
	}
	if err != nil {
		return codetool.Answer{}, err
	}
	if out.Kind == ProgramFailed {
		text := out.Error.Text()
		if opts.Session != nil && out.Error.Name == "ReferenceError" {
			text += "\n[session] " + opts.Session.holds()
		}
		return codetool.Answer{Status: codetool.StatusError, ExecutionID: id, Error: text, Logs: lines.All()}, nil
	}
	var content = out.Content
	if len(content) == 0 {
		content = nil
	}
	logs := lines.All()
	if len(out.SessionLost) > 0 {
		logs = append(logs, "[session] not kept for the next program (declare them again there): "+strings.Join(out.SessionLost, ", "))
	}
	return codetool.Answer{Status: codetool.StatusCompleted, ExecutionID: id, Value: out.Value, Content: content, Logs: logs}, nil
}

// sessionFor is the session of the code tool's run in ctx: the one its
// key names (codetool.WithSession), made with the bounds of the default
// RunOptions' Session when new, or that Session itself, or nil.
func (c *Client) sessionFor(ctx context.Context) *Session {
	if key := runctx.SessionFrom(ctx); key != "" {
		return c.sessions.get(key, c.defaults.Session, time.Now(), runctx.LiveSessionsFrom(ctx))
	}
	return c.defaults.Session
}

// Environment describes where the client's programs run, for an agent
// (the executor's Description).
func (c *Client) Environment() string { return c.rt.Description() }

// WithDefaults returns a client for the same executor, contract and
// extension whose Execute runs programs with o (its ExecutionID is
// ignored: each execution gets its own): a fetch policy, limits, a tracer
// provider, an approver or a telemetry observer for the code tool's runs.
// Run and RunCode take their own options. A Session in o makes the code
// tool's programs one session (see Session); with codetool.WithSession
// each key has its own session instead, with o.Session's bounds.
//
//	cl = cl.WithDefaults(client.RunOptions{Limits: client.Limits{Timeout: 10 * time.Second}})
//	tool, err := codetool.New(cl, codetool.Options{})
func (c *Client) WithDefaults(o RunOptions) *Client {
	d := *c
	d.defaults = o
	return &d
}
