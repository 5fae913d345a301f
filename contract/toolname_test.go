package contract_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/codemode-go/codemode/contract"
)

func TestCheckToolNameAcceptsIdentifiers(t *testing.T) {
	for _, name := range []string{
		"getWeather", "a", "A", "$", "_", "$$", "__", "$foo", "_bar", "foo$bar",
		"a1", "a0123456789", "$1", "_0", "snake_case_name", "CamelCase",
		// Case matters, and near misses of reserved names are fine.
		"Class", "AWAIT", "Then", "then_", "thenable", "constructor2", "proto", "__proto", "_proto__",
		"ToString", "valueof", "toJSON", "undefined", "NaN", "eval", "arguments",
		strings.Repeat("x", 300),
	} {
		t.Run(name, func(t *testing.T) {
			if err := contract.CheckToolName(name); err != nil {
				t.Errorf("CheckToolName(%q) = %v, want nil", name, err)
			}
		})
	}
}

func TestCheckToolNameRejectsNonIdentifiers(t *testing.T) {
	for _, tc := range []struct{ label, name string }{
		{"empty", ""},
		{"leading digit", "1abc"},
		{"only digits", "123"},
		{"hyphen", "a-b"},
		{"dot", "get.weather"},
		{"space", "get weather"},
		{"leading space", " getWeather"},
		{"trailing space", "getWeather "},
		{"trailing newline", "getWeather\n"},
		{"leading newline", "\ngetWeather"},
		{"tab", "get\tWeather"},
		{"NUL", "get\x00Weather"},
		{"quote", `get"Weather`},
		{"bracket", "tools[0]"},
		{"paren", "f()"},
		{"at sign", "@tool"},
		{"hash private name", "#tool"},
		{"cyrillic e lookalike", "g\u0435tWeather"},
		{"cyrillic a lookalike", "\u0430"},
		{"greek omicron lookalike", "f\u03bfo"},
		{"fullwidth letters", "\uff47\uff45\uff54"},
		{"zero-width space", "get\u200bWeather"},
		{"zero-width joiner", "get\u200dWeather"},
		{"BOM prefix", "\ufeffgetWeather"},
		{"non-breaking space", "get\u00a0Weather"},
		{"accented letter", "caf\u00e9"},
		{"combining accent", "cafe\u0301"},
		{"mathematical bold", "\U0001d41a"},
		{"unicode escape text", `\u0061`},
		{"invalid UTF-8", "a\xffb"},
	} {
		t.Run(tc.label, func(t *testing.T) {
			err := contract.CheckToolName(tc.name)
			if err == nil {
				t.Fatalf("CheckToolName(%q) = nil, want an error", tc.name)
			}
			if !errors.Is(err, contract.ErrInvalidToolName) {
				t.Errorf("CheckToolName(%q) = %v, does not wrap ErrInvalidToolName", tc.name, err)
			}
			if !strings.Contains(err.Error(), "not a JavaScript identifier") {
				t.Errorf("CheckToolName(%q) = %v, want it to say it is not a JavaScript identifier", tc.name, err)
			}
		})
	}
}

// reservedToolNames are every ECMAScript reserved word (including the
// strict-mode and future ones), then, and the Object.prototype properties.
var reservedToolNames = []string{
	// Keywords.
	"await", "break", "case", "catch", "class", "const", "continue", "debugger", "default", "delete",
	"do", "else", "enum", "export", "extends", "false", "finally", "for", "function", "if", "import",
	"in", "instanceof", "new", "null", "return", "super", "switch", "this", "throw", "true", "try",
	"typeof", "var", "void", "while", "with", "yield",
	// Strict-mode reserved words.
	"implements", "interface", "let", "package", "private", "protected", "public", "static",
	// A tool object must not be thenable.
	"then",
	// Object.prototype.
	"__proto__", "constructor", "hasOwnProperty", "isPrototypeOf", "propertyIsEnumerable",
	"toLocaleString", "toString", "valueOf",
	"__defineGetter__", "__defineSetter__", "__lookupGetter__", "__lookupSetter__",
}

func TestCheckToolNameRejectsReservedNames(t *testing.T) {
	for _, name := range reservedToolNames {
		t.Run(name, func(t *testing.T) {
			err := contract.CheckToolName(name)
			if err == nil {
				t.Fatalf("CheckToolName(%q) = nil, want an error", name)
			}
			if !errors.Is(err, contract.ErrInvalidToolName) {
				t.Errorf("CheckToolName(%q) = %v, does not wrap ErrInvalidToolName", name, err)
			}
			if !strings.Contains(err.Error(), "reserved") || !strings.Contains(err.Error(), `"`+name+`"`) {
				t.Errorf("CheckToolName(%q) = %v, want it to name the tool and say it is reserved", name, err)
			}
		})
	}
}

func TestNewToolRejectsReservedNames(t *testing.T) {
	typed := func(ctx context.Context, in WeatherInput) (WeatherReport, error) { return WeatherReport{}, nil }
	raw := func(ctx context.Context, in json.RawMessage) (json.RawMessage, error) { return in, nil }
	names := append([]string{"", "1abc", "a-b", "g\u0435tWeather"}, reservedToolNames...)
	for _, name := range names {
		t.Run("typed/"+name, func(t *testing.T) {
			tool, err := contract.NewTool(name, "A tool.", typed)
			if !errors.Is(err, contract.ErrInvalidToolName) {
				t.Errorf("NewTool(%q) = %v, %v; want an error wrapping ErrInvalidToolName", name, tool, err)
			}
		})
		t.Run("raw/"+name, func(t *testing.T) {
			tool, err := contract.NewRawTool(name, "A tool.", json.RawMessage(`{"type":"string"}`), json.RawMessage(`{"type":"string"}`), raw)
			if !errors.Is(err, contract.ErrInvalidToolName) {
				t.Errorf("NewRawTool(%q) = %v, %v; want an error wrapping ErrInvalidToolName", name, tool, err)
			}
		})
	}
}

func TestNewToolRejectsBlankDescriptions(t *testing.T) {
	typed := func(ctx context.Context, in WeatherInput) (WeatherReport, error) { return WeatherReport{}, nil }
	raw := func(ctx context.Context, in json.RawMessage) (json.RawMessage, error) { return in, nil }
	for _, tc := range []struct{ label, description string }{
		{"empty", ""},
		{"space", " "},
		{"spaces", "   "},
		{"tab and newlines", "\t\n\r\n"},
		{"unicode spaces", "\u00a0\u2003\u3000"},
	} {
		t.Run("typed/"+tc.label, func(t *testing.T) {
			_, err := contract.NewTool("getWeather", tc.description, typed)
			if err == nil || !strings.Contains(err.Error(), "description") {
				t.Errorf("NewTool with description %q: err = %v, want an error about the description", tc.description, err)
			}
			if errors.Is(err, contract.ErrInvalidToolName) {
				t.Errorf("NewTool with description %q: err = %v wraps ErrInvalidToolName", tc.description, err)
			}
		})
		t.Run("raw/"+tc.label, func(t *testing.T) {
			_, err := contract.NewRawTool("getWeather", tc.description, json.RawMessage(`{"type":"string"}`), json.RawMessage(`{"type":"string"}`), raw)
			if err == nil || !strings.Contains(err.Error(), "description") {
				t.Errorf("NewRawTool with description %q: err = %v, want an error about the description", tc.description, err)
			}
		})
	}
}

func TestNewToolRejectsNilHandlers(t *testing.T) {
	t.Run("typed", func(t *testing.T) {
		var fn func(context.Context, WeatherInput) (WeatherReport, error)
		tool, err := contract.NewTool("getWeather", "Current weather.", fn)
		if err == nil || !strings.Contains(err.Error(), "nil handler") {
			t.Errorf("NewTool(nil fn) = %v, %v; want a nil handler error", tool, err)
		}
	})
	t.Run("raw", func(t *testing.T) {
		tool, err := contract.NewRawTool("getWeather", "Current weather.", json.RawMessage(`{"type":"string"}`), json.RawMessage(`{"type":"string"}`), nil)
		if err == nil || !strings.Contains(err.Error(), "nil handler") {
			t.Errorf("NewRawTool(nil handler) = %v, %v; want a nil handler error", tool, err)
		}
	})
	t.Run("typed nil fn and bad name reports the name", func(t *testing.T) {
		var fn func(context.Context, WeatherInput) (WeatherReport, error)
		_, err := contract.NewTool("class", "Current weather.", fn)
		if !errors.Is(err, contract.ErrInvalidToolName) {
			t.Errorf("NewTool(class, nil fn) = %v, want ErrInvalidToolName first", err)
		}
	})
}

func TestNewRawToolRejectsBadSchemas(t *testing.T) {
	raw := func(ctx context.Context, in json.RawMessage) (json.RawMessage, error) { return in, nil }
	good := json.RawMessage(`{"type":"string"}`)
	for _, tc := range []struct {
		label         string
		input, output json.RawMessage
		want          string
	}{
		{"input not JSON", json.RawMessage(`{`), good, "tool getWeather input"},
		{"output not JSON", good, json.RawMessage(`nope`), "tool getWeather output"},
		{"input invalid schema", json.RawMessage(`{"type":12}`), good, "tool getWeather input"},
		{"output invalid schema", good, json.RawMessage(`{"minLength":-1}`), "tool getWeather output"},
		{"input empty", nil, good, "tool getWeather input"},
	} {
		t.Run(tc.label, func(t *testing.T) {
			_, err := contract.NewRawTool("getWeather", "Current weather.", tc.input, tc.output, raw)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("NewRawTool: err = %v, want one containing %q", err, tc.want)
			}
		})
	}
}

func TestToolAccessors(t *testing.T) {
	in, out := json.RawMessage(`{"type":"string"}`), json.RawMessage(`{"type":"integer"}`)
	tool, err := contract.NewRawTool("count", "Count the characters.", in, out, func(ctx context.Context, in json.RawMessage) (json.RawMessage, error) {
		return json.RawMessage(`1`), nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if tool.Name() != "count" || tool.Description() != "Count the characters." {
		t.Errorf("Name, Description = %q, %q", tool.Name(), tool.Description())
	}
	if got := string(tool.InputSchema().JSON()); got != string(in) {
		t.Errorf("InputSchema().JSON() = %s, want %s", got, in)
	}
	if got := string(tool.OutputSchema().JSON()); got != string(out) {
		t.Errorf("OutputSchema().JSON() = %s, want %s", got, out)
	}
}
