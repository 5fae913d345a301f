package openapi_test

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codemode-go/codemode/client"
	"github.com/codemode-go/codemode/connector/openapi"
	"github.com/codemode-go/codemode/contract"
)

// TestResponseValidation: a 200 response that breaks the Pet schema fails
// the call under ResponsesError (naming the method, status, pointer and
// reason), is returned with a logged warning under ResponsesWarn, and is
// not looked at under ResponsesOff; a matching one passes under each.
func TestResponseValidation(t *testing.T) {
	srv := newAPIServer(t, func(r *http.Request) (int, string, string) {
		if strings.HasSuffix(r.URL.Path, "/7") {
			return 200, "application/json", `{"id":7,"name":"Rex","photoUrls":["a"],"status":"available"}`
		}
		return 200, "application/json", `{"id":8,"name":"Tom","photoUrls":"not an array","status":"available"}`
	})
	doc := filepath.Join(examplesDir(t), "3.0", "json", "petstore.json")
	cases := []struct {
		name      string
		mode      openapi.ResponseValidation
		wantErr   string // in the program's error; empty: the call succeeds
		wantLog   string
		wantValue string
	}{
		{"error", openapi.ResponsesError, `ToolValidationError`, "", ""},
		{"warn", openapi.ResponsesWarn, "", `/photoUrls: value must be an array (the 200 response of GET /pet/{petId} does not match the document)`, `"not an array"`},
		{"off", openapi.ResponsesOff, "", "", `"not an array"`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var logs bytes.Buffer
			c, _, err := openapi.Load(context.Background(), doc, openapi.Options{Name: "petstore", BaseURL: srv.URL, Responses: tc.mode,
				Logger: slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelWarn}))})
			if err != nil {
				t.Fatal(err)
			}
			out := runCode(t, `const good = await petstore.getPetById({ petId: 7 });
const bad = await petstore.getPetById({ petId: 8 });
[good.name, bad.photoUrls]`, c)
			if tc.wantErr != "" {
				if out.Kind != client.ProgramFailed || out.Error.Name != tc.wantErr ||
					!strings.Contains(out.Error.Message, "getPetById output validation failed") ||
					!strings.Contains(out.Error.Message, "/photoUrls: value must be an array (the 200 response of GET /pet/{petId} does not match the document)") {
					t.Fatalf("outcome %+v", out.Error)
				}
				return
			}
			if out.Kind != client.Success || !strings.Contains(string(out.Value), `"Rex"`) || !strings.Contains(string(out.Value), tc.wantValue) {
				t.Fatalf("outcome %s %+v", out.Value, out.Error)
			}
			if tc.wantLog != "" && !strings.Contains(logs.String(), tc.wantLog) {
				t.Errorf("log lacks %q:\n%s", tc.wantLog, logs.String())
			}
			if tc.wantLog == "" && logs.Len() > 0 {
				t.Errorf("unexpected log:\n%s", logs.String())
			}
		})
	}

	// In Go, the error is a *contract.ValidationError in phase output.
	c, _, err := openapi.Load(context.Background(), doc, openapi.Options{Name: "petstore", BaseURL: srv.URL, Responses: openapi.ResponsesError})
	if err != nil {
		t.Fatal(err)
	}
	ns, err := c.Namespace()
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range ns.Tools {
		if tool.Name() != "getPetById" {
			continue
		}
		_, err := tool.Handle(context.Background(), []byte(`{"petId": 8}`))
		var tve *contract.ValidationError
		if !errors.As(err, &tve) || tve.Phase != "output" || tve.Tool != "getPetById" {
			t.Fatalf("error %v", err)
		}
	}
}
