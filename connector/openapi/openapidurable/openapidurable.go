// Package openapidurable makes an OpenAPI connector (connector/openapi) a
// durable connector (durable.Connector): its operations, request and spec
// become methods of a durable namespace whose calls are journaled, replayed
// from the journal after a pause, and paused for a person's approval by
// HTTP method.
package openapidurable

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"github.com/codemode-go/codemode/connector/openapi"
	"github.com/codemode-go/codemode/durable"
)

// Options configure Connector.
type Options struct {
	// RequiresApproval decides, by HTTP method ("GET", "POST", …), whether
	// an operation's call pauses the execution until a person approves it.
	// Nil is DefaultApproval. The request method is asked per call, with
	// the call's method (upper-cased; GET when absent, "" when it is not
	// a string, which DefaultApproval approves of nothing); spec never
	// needs approval.
	RequiresApproval func(method string) bool
	// RequestOnly keeps only the request and spec methods (for
	// `codemode openapi serve --journal`, whose execute tool programs call
	// request): a large document's operations stay out of the
	// declarations.
	RequestOnly bool
}

// DefaultApproval requires approval for every method that is not safe
// (RFC 9110 §9.2.1: GET, HEAD, OPTIONS and TRACE change nothing on the
// server), an unknown one ("") included.
func DefaultApproval(method string) bool {
	switch method {
	case http.MethodGet, http.MethodHead, http.MethodOptions, http.MethodTrace:
		return false
	}
	return true
}

// Connector returns c's methods as a durable connector named c.Name():
// each operation (its declarations typed from the document, its
// components declared once as named types), request and, when the
// connector exposes it, spec. Calls are journaled (durable.ReplayLog): a
// replay returns the recorded response instead of sending the request
// again; spec is read again instead (durable.ReplayReexecute). It fails when the connector's tools cannot be listed.
func Connector(c *openapi.Connector, opts Options) (durable.Connector, error) {
	approve := opts.RequiresApproval
	if approve == nil {
		approve = DefaultApproval
	}
	tools, err := c.Tools()
	if err != nil {
		return durable.Connector{}, fmt.Errorf("openapidurable: %w", err)
	}
	ns, err := c.Namespace()
	if err != nil {
		return durable.Connector{}, fmt.Errorf("openapidurable: %w", err)
	}
	out := durable.Connector{Name: c.Name(), Definitions: ns.Definitions}
	for _, t := range tools {
		if opts.RequestOnly && t.Method != "" {
			continue
		}
		needs := false
		var perCall func(json.RawMessage) bool
		replay := durable.ReplayLog
		if t.Method == "" && t.ReadOnly {
			// spec: the document, read again on replay rather than copied
			// into the journal (which bounds a recorded value at 1 MB).
			replay = durable.ReplayReexecute
		}
		switch {
		case t.Method != "":
			needs = approve(t.Method)
		case !t.ReadOnly: // request
			perCall = func(args json.RawMessage) bool {
				var in struct {
					Method any `json:"method"`
				}
				if json.Unmarshal(args, &in) != nil {
					return approve("")
				}
				switch m := in.Method.(type) {
				case nil:
					return approve(http.MethodGet)
				case string:
					if strings.TrimSpace(m) == "" {
						return approve(http.MethodGet)
					}
					return approve(strings.ToUpper(strings.TrimSpace(m)))
				}
				return approve("")
			}
		}
		out.Tools = append(out.Tools, durable.ConnectorTool{
			Name: t.Name, Description: t.Description, InputSchema: t.InputSchema, OutputSchema: t.OutputSchema,
			Declared: true, RequiresApproval: needs, ApprovalFor: perCall, Replay: replay, Execute: t.Call,
		})
	}
	return out, nil
}
