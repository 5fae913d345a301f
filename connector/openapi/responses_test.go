package openapi_test

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"net/http"
	"path/filepath"
	"strconv"
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

// TestResponseMismatchNamesEveryPointer: a response that breaks its
// schema in several places is reported at each of them, in the warning
// and in the error, up to a bound (before, only the first: /name, not
// /photoUrls).
func TestResponseMismatchNamesEveryPointer(t *testing.T) {
	many := make([]string, 30)
	for i := range many {
		many[i] = strconv.Itoa(i)
	}
	bodies := map[string]string{
		"/8": `{"id":8,"name":5,"photoUrls":"not an array","status":"available"}`,
		"/9": `{"id":9,"name":"Tom","photoUrls":[` + strings.Join(many, ",") + `],"status":"available"}`,
	}
	srv := newAPIServer(t, func(r *http.Request) (int, string, string) {
		return 200, "application/json", bodies[r.URL.Path[strings.LastIndex(r.URL.Path, "/"):]]
	})
	doc := filepath.Join(examplesDir(t), "3.0", "json", "petstore.json")
	const what = " (the 200 response of GET /pet/{petId} does not match the document)"
	for _, tc := range []struct {
		name      string
		petID     string
		wantLines []string // the error's lines, each a prefix
		wantLog   string
	}{
		{"two members", "8",
			[]string{"/name: value must be a string" + what, "/photoUrls: value must be an array" + what},
			`mismatch="/name: value must be a string; /photoUrls: value must be an array` + what + `"`},
		{"thirty items", "9",
			[]string{"/photoUrls/0: value must be a string", "/photoUrls/1: ", "/photoUrls/2: ", "/photoUrls/3: ", "/photoUrls/4: ",
				"/photoUrls/5: ", "/photoUrls/6: ", "/photoUrls/7: ", "/photoUrls/8: ", "/photoUrls/9: ", "… and 20 more"},
			`/photoUrls/9: value must be a string; … and 20 more` + what + `"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var logs bytes.Buffer
			c, _, err := openapi.Load(context.Background(), doc, openapi.Options{Name: "petstore", BaseURL: srv.URL, Responses: openapi.ResponsesWarn,
				Logger: slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelWarn}))})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := handle(t, c, "getPetById", `{"petId": `+tc.petID+`}`); err != nil {
				t.Fatalf("ResponsesWarn: %v", err)
			}
			if !strings.Contains(logs.String(), tc.wantLog) {
				t.Errorf("log lacks %s:\n%s", tc.wantLog, logs.String())
			}
			c, _, err = openapi.Load(context.Background(), doc, openapi.Options{Name: "petstore", BaseURL: srv.URL, Responses: openapi.ResponsesError})
			if err != nil {
				t.Fatal(err)
			}
			_, err = handle(t, c, "getPetById", `{"petId": `+tc.petID+`}`)
			var tve *contract.ValidationError
			if !errors.As(err, &tve) {
				t.Fatalf("ResponsesError: %v, want a *contract.ValidationError", err)
			}
			ok := len(tve.Lines) == len(tc.wantLines)
			for i := 0; ok && i < len(tc.wantLines); i++ {
				ok = strings.HasPrefix(tve.Lines[i], tc.wantLines[i])
			}
			if !ok {
				t.Errorf("Lines =\n%s\nwant lines starting\n%s", strings.Join(tve.Lines, "\n"), strings.Join(tc.wantLines, "\n"))
			}
		})
	}
}

// handle calls c's tool name with input through its handler.
func handle(t *testing.T, c *openapi.Connector, name, input string) ([]byte, error) {
	t.Helper()
	ns, err := c.Namespace()
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range ns.Tools {
		if tool.Name() == name {
			return tool.Handle(context.Background(), []byte(input))
		}
	}
	t.Fatalf("no tool %s", name)
	return nil, nil
}
