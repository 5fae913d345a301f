package client

import (
	"sort"

	"github.com/codemode-go/codemode/wire"
)

// OutcomeKind says how a program ended.
type OutcomeKind string

// The outcome kinds (seed 002, RunOutcome).
const (
	Success       OutcomeKind = "success"
	ProgramFailed OutcomeKind = "program-failed"
)

// Content is one item of a program's ordered result: Type "text" with Text,
// or Type "image" with base64 Data and MimeType.
type Content struct {
	Type     string `json:"type"`
	Text     string `json:"text,omitempty"`
	Data     string `json:"data,omitempty"`
	MimeType string `json:"mimeType,omitempty"`
}

// ProgramError is the error a failed program ended with: the JavaScript
// error's name, message and stack (bounded by the runner: name 200, message
// 8,192, stack 16,384 characters), with stack positions in the submitted
// source's coordinates.
type ProgramError struct {
	Name    string `json:"name"`
	Message string `json:"message"`
	Stack   string `json:"stack,omitempty"`
}

// Error returns "name: message".
func (e *ProgramError) Error() string { return e.Name + ": " + e.Message }

// Outcome is the result of one run: Kind Success with Content (never nil;
// empty when the program appended nothing), or Kind ProgramFailed with
// Error.
type Outcome struct {
	Kind    OutcomeKind   `json:"kind"`
	Content []Content     `json:"content,omitempty"`
	Error   *ProgramError `json:"error,omitempty"`
	// Halt is the error a Middleware or tool handler ended the execution
	// with (see Halt), for errors.As; nil otherwise. Error then carries its
	// name and message.
	Halt error `json:"-"`
}

func outcomeOf(m *wire.Message) *Outcome {
	if m.Outcome == wire.OutcomeSuccess {
		c := make([]Content, len(m.Content))
		for i, x := range m.Content {
			c[i] = Content{Type: x.Type, Text: x.Text, Data: x.Data, MimeType: x.MimeType}
		}
		return &Outcome{Kind: Success, Content: c}
	}
	return &Outcome{Kind: ProgramFailed, Error: &ProgramError{Name: m.Error.Name, Message: m.Error.Message, Stack: m.Error.Stack}}
}

func sortedKeys(m map[string][]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
