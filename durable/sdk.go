package durable

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/codemode-go/codemode/contract"
)

// journalNamespace is the hidden contract namespace of the journal's own
// host tools, behind codemode.step and codemode.run (see
// durable/internal/sdk/src/sdk.ts): the scope setup takes it out of the
// program's reach, so programs call them only through the SDK.
const journalNamespace = "__codemode"

// The journal's own entries are recorded under the namespace codemode,
// where the SDK reserves step and run, so no tool can share their names:
// stepMethod begins a codemode.step, stepEndMethod ends one whose function
// made calls or read the clock (its arguments: {"name", "begin": the
// step's seq, …}; on replay the step's function does not run, and the entry
// tells the pass how many seq numbers the calls inside it took, so that
// the calls after the step keep theirs), and runMethod records
// codemode.run's lookup of a saved program (its result: the code as the
// program ran it, or the error it resolved to, so that a replay runs the
// same code even when the snippet changed meanwhile).
const (
	stepConnector = "codemode"
	stepMethod    = "step"
	stepEndMethod = "step_end"
	runMethod     = "run"
)

// sdkDeclarations declare what the durable SDK adds to the contract's:
// codemode.run (by interface merging with the codemode namespace's
// interface), and input, which a program saved as a snippet reads when
// codemode.run runs it (it is passed as input, a variable in every form of
// the snippet). Executions take no input (as upstream's execute(code)): at
// the top level of one, input is not defined, and typeof input is
// "undefined".
const sdkDeclarations = `interface Tools {
  /**
   * Runs the saved program (snippet) name with input, inside this
   * execution. A missing snippet, or one whose recorded namespaces are not
   * all configured, resolves to an object with an error property instead of
   * throwing.
   */
  run(name: string, input?: unknown): Promise<unknown>;
}

interface AgentProgramScope {
  /** The input of codemode.run when this program runs as a saved snippet; undefined in an execution. */
  readonly input?: any;
}

/** The input of codemode.run when this program runs as a saved snippet; not defined at the top level of an execution (test typeof input). */
declare const input: any;
`

// journalTools are the host halves of codemode.step and codemode.run's
// lookup; the pass's middleware answers them, never their handlers.
func journalTools() ([]*contract.Tool, error) {
	refuse := func(context.Context, json.RawMessage) (json.RawMessage, error) {
		return nil, errors.New("answered by the durable journal only")
	}
	var tools []*contract.Tool
	for _, t := range []struct{ name, desc, schema string }{
		{"step_begin", "Begins codemode.step: the recorded value, or a token.", `{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}`},
		{"step_end", "Ends codemode.step: records the value.", `{"type":"object","properties":{"name":{"type":"string"},"token":{"type":"integer"},"failed":{"type":"boolean"}},"required":["name"]}`},
		{"step_skip", "Takes the seq of a call a replayed step's function made.", `{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}`},
		{"snippet", "codemode.run: a snippet's code, recorded.", `{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}`},
	} {
		ct, err := contract.NewForeignTool(t.name, t.desc, json.RawMessage(t.schema), nil, refuse)
		if err != nil {
			return nil, err
		}
		tools = append(tools, ct)
	}
	return tools, nil
}
