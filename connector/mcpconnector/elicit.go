package mcpconnector

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/codemode-go/codemode/internal/runctx"
)

// askers are the runs with calls in flight on one server, by the Asker
// their context carries (the MCP server's client session of that run),
// with how many calls each has there.
type askers struct {
	mu sync.Mutex
	n  map[*runctx.Asker]int
	// calls counts every call in flight, with an Asker or without.
	calls int
	// lingering are calls their run gave up on (cancelled, or the program
	// ended without awaiting them): the server may still be working on
	// them, and ask about them, for a while. Until then a question cannot
	// be told from one of theirs.
	lingering []time.Time
	// turn is held by the server's question that is with a person;
	// questions counts that one and those waiting for the turn.
	turn      chan struct{}
	questions int
}

// maxQuestions bounds the server's questions with a person or waiting
// for one: a person answers one question at a time (a round of input
// requests asks several at once), and a server that asks without end
// would hold each (up to 16 MiB) meanwhile.
const maxQuestions = 4

// startQuestion waits, within ctx, until none of the server's other
// questions is with a person, and reports whether this one may go to the
// person now: not when maxQuestions are open or waiting already, or ctx
// ends first. After true, endQuestion ends its turn.
func (a *askers) startQuestion(ctx context.Context) bool {
	a.mu.Lock()
	if a.questions >= maxQuestions {
		a.mu.Unlock()
		return false
	}
	if a.turn == nil {
		a.turn = make(chan struct{}, 1)
	}
	a.questions++
	turn := a.turn
	a.mu.Unlock()
	select {
	case turn <- struct{}{}:
		return true
	case <-ctx.Done():
		a.mu.Lock()
		a.questions--
		a.mu.Unlock()
		return false
	}
}

// endQuestion ends the turn of the question startQuestion let go.
func (a *askers) endQuestion() {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.questions--
	<-a.turn
}

// lingerFor is how long a call given up on may still be asked about.
const lingerFor = 2 * time.Minute

// enter notes a call of ctx's run; the returned func notes its end.
func (a *askers) enter(ctx context.Context) func() {
	asker := runctx.AskerFrom(ctx)
	a.mu.Lock()
	defer a.mu.Unlock()
	a.calls++
	if asker != nil {
		if a.n == nil {
			a.n = map[*runctx.Asker]int{}
		}
		a.n[asker]++
	}
	return func() {
		a.mu.Lock()
		defer a.mu.Unlock()
		if ctx.Err() != nil {
			a.lingering = append(a.lingering, time.Now().Add(lingerFor))
		}
		a.calls--
		if asker != nil {
			if a.n[asker]--; a.n[asker] == 0 {
				delete(a.n, asker)
			}
		}
	}
}

// only returns the one run whose person a question of the server goes to:
// the server asks while calls are in flight, and a question is forwarded
// only when they all belong to one run that can ask. Otherwise it says why
// not.
func (a *askers) only() (*runctx.Asker, string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	now := time.Now()
	a.lingering = slices.DeleteFunc(a.lingering, func(until time.Time) bool { return now.After(until) })
	switch {
	case len(a.lingering) > 0:
		return nil, "a call a program gave up on may still be running there, and codemode cannot tell whose question it is"
	case a.calls == 0:
		return nil, "no program is calling the server, so nobody can be asked"
	case len(a.n) == 1 && a.n[firstKey(a.n)] == a.calls:
		return firstKey(a.n), ""
	case len(a.n) == 0:
		return nil, "nobody can be asked (the call was not made by a program whose MCP client can take a question now: one that declared elicitation and speaks a protocol before 2026-07-28; codemode run has no person to ask)"
	}
	return nil, "several programs are calling the server at once, and codemode cannot tell whose question it is"
}

func firstKey(m map[*runctx.Asker]int) *runctx.Asker {
	for k := range m {
		return k
	}
	return nil
}

// elicit answers the server's elicitation request: forwarded to the person
// of the run the question belongs to, its message cut to maxQuestion
// bytes, with the schema's defaults filled in for fields the person left
// out (SEP-1034:
// https://github.com/modelcontextprotocol/modelcontextprotocol/issues/1034),
// or declined with a log line saying what was asked and why nobody was.
// The person is asked one of the server's questions at a time; past
// maxQuestions open or waiting, a question is declined, as is one whose
// form is over maxFormBytes or maxFormFields.
func (u *upstream) elicit(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
	p := req.Params
	// Asked in a call's result (SEP-2322), the question comes with the
	// call's context; asked by a request of the server's own (older
	// protocols), it goes to the run calling the server.
	asker, why := runctx.AskerFrom(ctx), ""
	if asker == nil {
		asker, why = u.askers.only()
	}
	schema, err := json.Marshal(p.RequestedSchema)
	if err != nil {
		return nil, fmt.Errorf("mcp server %s: elicitation schema: %w", u.server, err)
	}
	tooLarge := formTooLarge(schema)
	switch {
	case asker == nil:
	case p.Mode == "url":
		asker, why = nil, "codemode forwards form questions only, not URL-mode ones"
	case tooLarge != "":
		asker, why = nil, tooLarge
	case !u.askers.startQuestion(ctx):
		asker, why = nil, fmt.Sprintf("%d of its questions were open or waiting for the person already, or the question was withdrawn", maxQuestions)
	default:
		defer u.askers.endQuestion()
	}
	if asker == nil {
		u.log.Warn(fmt.Sprintf("MCP server %s asked %q; declined: %s", namespaceName(u.server), u.logged(p.Message), why))
		return &mcp.ElicitResult{Action: "decline"}, nil
	}
	message := cutText(u.redact.clean(p.Message), maxQuestion, "the question")
	action, content, err := asker.Ask(ctx, question(namespaceName(u.server), message), schema)
	if err != nil {
		u.log.Warn(fmt.Sprintf("MCP server %s asked %q; cancelled: %v", namespaceName(u.server), u.logged(p.Message), err))
		return &mcp.ElicitResult{Action: "cancel"}, nil
	}
	if action != "accept" {
		return &mcp.ElicitResult{Action: action}, nil
	}
	return &mcp.ElicitResult{Action: action, Content: withDefaults(content, schema)}, nil
}

// Bounds of what a server's question puts before a person. A server may
// send a question up to the transport's bound (16 MiB); the person reads
// the message's start (cut, saying so, as a server's error is cut to 4
// KiB), and a form larger than a person fills in is not shown at all:
// cutting it would ask for other fields than the server wants. The MCP
// specification restricts forms to flat objects of primitive fields
// (which the go-sdk checks) but sets no size.
const (
	maxQuestion   = 4 << 10  // bytes of the message
	maxFormBytes  = 16 << 10 // bytes of the requested schema, as JSON
	maxFormFields = 64       // properties of the requested schema
)

// formTooLarge says why a requested schema is too large to put before a
// person, or "" when it is not.
func formTooLarge(schema json.RawMessage) string {
	if len(schema) > maxFormBytes {
		return fmt.Sprintf("its form is %d bytes, more than %d", len(schema), maxFormBytes)
	}
	var s struct {
		Properties map[string]json.RawMessage `json:"properties"`
	}
	if json.Unmarshal(schema, &s) == nil && len(s.Properties) > maxFormFields {
		return fmt.Sprintf("its form has %d fields, more than %d", len(s.Properties), maxFormFields)
	}
	return ""
}

// maxLoggedQuestion bounds the part of a question a log line quotes, in
// bytes: a server may ask as often as it likes, each question up to the
// transport's bound (16 MiB).
const maxLoggedQuestion = 1 << 10

// logged is a server's question as a log line quotes it: cleaned (see
// redactor.clean) and cut to maxLoggedQuestion bytes.
func (u *upstream) logged(message string) string {
	return cutText(u.redact.clean(message), maxLoggedQuestion, "the question")
}

// withDefaults fills in, for each top-level property of schema that
// content lacks, the property's "default" (SEP-1034).
func withDefaults(content map[string]any, schema json.RawMessage) map[string]any {
	var s struct {
		Properties map[string]struct {
			Default any `json:"default"`
		} `json:"properties"`
	}
	if json.Unmarshal(schema, &s) != nil {
		return content
	}
	for name, prop := range s.Properties {
		if _, ok := content[name]; ok || prop.Default == nil {
			continue
		}
		if content == nil {
			content = map[string]any{}
		}
		content[name] = prop.Default
	}
	return content
}

// question is what the person reads of the server's message: the
// server's name, then each line of the message quoted, so that a line of
// the message cannot pose as codemode's own ("The MCP server bank asks:").
func question(server, message string) string {
	lines := strings.Split(message, "\n")
	for i, l := range lines {
		lines[i] = "> " + l
	}
	return "The MCP server " + server + " asks:\n" + strings.Join(lines, "\n")
}
