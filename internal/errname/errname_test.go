package errname

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/codemode-go/codemode/internal/wire"
)

func TestProgramErrorsRegistry(t *testing.T) {
	seen := map[Name]bool{}
	text := ToolCallText()
	for _, e := range programErrors() {
		if seen[e.Name] || !strings.HasSuffix(string(e.Name), "Error") || strings.TrimSpace(e.Meaning) == "" {
			t.Errorf("bad or repeated entry %+v", e)
		}
		seen[e.Name] = true
		if got := strings.Contains(text, string(e.Name)+":"); got != e.ToolCall {
			t.Errorf("ToolCallText mentions %s: %v, want %v\n%s", e.Name, got, e.ToolCall, text)
		}
	}
	for _, name := range []Name{ToolValidation, MCPTool, Timeout, Halt, rangeError, internalError} {
		if !seen[name] {
			t.Errorf("%s is not in ProgramErrors", name)
		}
	}
	programErrors()[0].Name = "Changed"
	if programErrors()[0].Name == "Changed" {
		t.Error("ProgramErrors shares its slice")
	}
}

type named struct{ name string }

func (n named) Error() string     { return "failed" }
func (n named) ErrorName() string { return n.name }

// Of reads the first ErrorName in the chain, through wrapping, and falls
// back when there is none.
func TestOf(t *testing.T) {
	for _, c := range []struct {
		err  error
		want string
	}{
		{errors.New("plain"), "fallback"},
		{named{"HTTPError"}, "HTTPError"},
		{fmt.Errorf("calling: %w", named{"HTTPError"}), "HTTPError"},
		{fmt.Errorf("outer: %w", fmt.Errorf("inner: %w", named{"MCPToolError"})), "MCPToolError"},
		{errors.Join(errors.New("first"), named{"Second"}), "Second"},
		{named{""}, ""},
	} {
		if got := Of(c.err, "fallback"); got != c.want {
			t.Errorf("Of(%v) = %q, want %q", c.err, got, c.want)
		}
	}
}

// panicky's methods panic, as a method reading a nil map's missing
// member as an int does; panickyJSON's MarshalJSON too.
type panicky struct{}

func (panicky) Error() string                   { return "failed" }
func (panicky) ErrorName() string               { panic("no name") }
func (panicky) ErrorProperties() map[string]any { panic("no properties") }

type panickyJSON struct{}

func (panickyJSON) MarshalJSON() ([]byte, error) { panic("no JSON") }

// A panicking ErrorName gives the fallback: the host goes on.
func TestOfPanickingMethod(t *testing.T) {
	if got := Of(fmt.Errorf("wrapped: %w", panicky{}), "Error"); got != "Error" {
		t.Errorf("Of = %q, want Error", got)
	}
}

type withProps struct{ props map[string]any }

func (w withProps) Error() string                   { return "failed" }
func (w withProps) ErrorProperties() map[string]any { return w.props }

// Data encodes the first ErrorProperties in the chain and leaves out what
// is empty, does not encode, or is too large for the wire.
func TestData(t *testing.T) {
	big := strings.Repeat("x", wire.MaxErrorData)
	for _, c := range []struct {
		name string
		err  error
		want string
	}{
		{"none", errors.New("plain"), ""},
		{"status", withProps{map[string]any{"status": 404, "path": "/pets/9"}}, `{"path":"/pets/9","status":404}`},
		{"wrapped", fmt.Errorf("calling: %w", withProps{map[string]any{"status": 503}}), `{"status":503}`},
		{"empty", withProps{map[string]any{}}, ""},
		{"not JSON", withProps{map[string]any{"f": func() {}}}, ""},
		{"too large", withProps{map[string]any{"body": big}}, ""},
		{"a panicking method", panicky{}, ""},
		{"a panicking MarshalJSON", withProps{map[string]any{"v": panickyJSON{}}}, ""},
	} {
		if got := string(Data(c.err)); got != c.want {
			t.Errorf("%s: Data = %q, want %q", c.name, got, c.want)
		}
	}
}
