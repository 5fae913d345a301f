package codetool_test

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codemode-go/codemode/codetool"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// TestCode: the arguments a model may send, and what each gives.
func TestCode(t *testing.T) {
	for _, tc := range []struct {
		name, args, code, reason string
	}{
		{"program", `{"code": "return 1"}`, "return 1", ""},
		{"unicode", `{"code": "return \"\u00e9\""}`, `return "é"`, ""},
		{"missing", `{}`, "", `"code" is missing`},
		{"null", `{"code": null}`, "", `"code" is not a string`},
		{"number", `{"code": 1}`, "", `"code" is not a string`},
		{"blank", `{"code": " \n"}`, "", `"code" is empty`},
		{"extra property", `{"code": "1", "lang": "ts"}`, "", `unknown field "lang"`},
		{"array", `["1"]`, "", "not a JSON object"},
		{"cut short", `{"code": "1"`, "", "not a JSON object"},
		{"two objects", `{"code": "1"} {}`, "", "text after the JSON object"},
		{"empty", ``, "", "not a JSON object"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, err := codetool.Code(json.RawMessage(tc.args))
			var ae *codetool.ArgumentsError
			switch {
			case tc.reason == "" && (err != nil || code != tc.code):
				t.Fatalf("Code: %q, %v, want %q", code, err, tc.code)
			case tc.reason != "" && (!errors.As(err, &ae) || !strings.Contains(ae.Reason, tc.reason)):
				t.Fatalf("Code: %q, %v, want an ArgumentsError about %s", code, err, tc.reason)
			}
		})
	}
}

// FuzzCode: any bytes give a non-empty program or an ArgumentsError, never
// a panic or another error.
func FuzzCode(f *testing.F) {
	for _, s := range []string{`{"code":"1"}`, `{"code":""}`, `{}`, `[]`, `{"code":"a","b":1}`, `{"code":"\ud800"}`, `nul`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		code, err := codetool.Code(data)
		var ae *codetool.ArgumentsError
		if err == nil && strings.TrimSpace(code) == "" || err != nil && !errors.As(err, &ae) {
			t.Fatalf("Code(%q): %q, %v", data, code, err)
		}
	})
}

// TestCallRunsOnlyValidArguments: Call hands the program to the maker and
// passes its answer and error through; bad arguments never reach it.
func TestCallRunsOnlyValidArguments(t *testing.T) {
	var got []string
	boom := errors.New("journal down")
	tool := codetool.New(codetool.Descriptor{Name: codetool.Name}, func(ctx context.Context, code string) (json.RawMessage, error) {
		got = append(got, code)
		if code == "fail" {
			return nil, boom
		}
		return json.RawMessage(`{"status":"completed"}`), nil
	})
	if out, err := tool.Call(context.Background(), json.RawMessage(`{"code":"ok"}`)); err != nil || string(out) != `{"status":"completed"}` {
		t.Fatalf("Call: %s, %v", out, err)
	}
	if _, err := tool.Call(context.Background(), json.RawMessage(`{"code":"fail"}`)); !errors.Is(err, boom) {
		t.Fatalf("Call: %v, want the maker's error", err)
	}
	if _, err := tool.Call(context.Background(), json.RawMessage(`{"cod":"x"}`)); err == nil {
		t.Fatal("bad arguments ran")
	}
	if strings.Join(got, ",") != "ok,fail" {
		t.Fatalf("the maker ran %q", got)
	}
}

// TestDescription: the generated texts, pinned by golden files; hints for
// namespaces that do not exist, or of more than one line, are errors; a
// given description replaces the generated one.
func TestDescription(t *testing.T) {
	cat := codetool.Catalogue{Namespaces: []string{"github", "slack"}, Declarations: "declare const github: {};\ndeclare const slack: {};\n"}
	hints := codetool.Options{ConnectorHints: map[string]string{"github": "issues and pull requests of acme/*"}}
	for _, tc := range []struct {
		golden  string
		durable bool
	}{{"durable.golden", true}, {"plain.golden", false}} {
		t.Run(tc.golden, func(t *testing.T) {
			c := cat
			c.Durable = tc.durable
			got, err := codetool.Description(c, hints)
			if err != nil {
				t.Fatal(err)
			}
			path := filepath.Join("testdata", tc.golden)
			if *update {
				if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if got != string(want) {
				t.Fatalf("description:\n%s\nwant (%s):\n%s", got, path, want)
			}
		})
	}
	if _, err := codetool.Description(cat, codetool.Options{ConnectorHints: map[string]string{"jira": "tickets"}}); err == nil || !strings.Contains(err.Error(), "jira") {
		t.Fatalf("hint for a missing namespace: %v", err)
	}
	if _, err := codetool.Description(cat, codetool.Options{ConnectorHints: map[string]string{"slack": "a\nb"}}); err == nil || !strings.Contains(err.Error(), "one line") {
		t.Fatalf("two-line hint: %v", err)
	}
	if got, err := codetool.Description(cat, codetool.Options{Description: "Mine."}); err != nil || got != "Mine." {
		t.Fatalf("given description: %q, %v", got, err)
	}
}

// TestFailed: which answers adapters flag as errors.
func TestFailed(t *testing.T) {
	for answer, want := range map[string]bool{
		`{"status":"error","error":"x"}`:       true,
		`{"kind":"program-failed","error":{}}`: true,
		`{"status":"paused","pending":[]}`:     false,
		`{"status":"completed","result":null}`: false,
		`{"kind":"success","value":1}`:         false,
		`not json`:                             false,
	} {
		if got := codetool.Failed(json.RawMessage(answer)); got != want {
			t.Errorf("Failed(%s) = %v", answer, got)
		}
	}
}
