package openapi_test

import (
	"context"
	"net/http"
	"os"
	"strings"
	"testing"

	"github.com/codemode-go/codemode/connector/openapi"
)

// A form request body (application/x-www-form-urlencoded, as every write of
// Stripe's API takes) reaches the server encoded by its Encoding Objects:
// scalars as key=value, deepObject and nested values with brackets, a
// null empty. A form that can carry nothing (Stripe's GETs declare one) is
// left out without a warning; a multipart body is still left out with one.
func TestFormBodiesAreSentEncoded(t *testing.T) {
	srv := newAPIServer(t, func(r *http.Request) (int, string, string) { return 200, "application/json", `{"ok":true}` })
	doc, err := os.ReadFile("testdata/forms.json")
	if err != nil {
		t.Fatal(err)
	}
	c, warnings, err := openapi.Parse(context.Background(), doc, openapi.Options{Name: "pay", BaseURL: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	if len(warnings) != 1 || !strings.Contains(warnings[0], "PostFiles") || !strings.Contains(warnings[0], "multipart/form-data") {
		t.Errorf("warnings %q, want one, for PostFiles's multipart body", warnings)
	}
	out := runCode(t, `
await pay.PostRefunds({ body: {
  amount: 500, charge: "ch_1", reason: null,
  expand: ["charge", "payment_intent"], tags: ["a b", "c"],
  metadata: { order: "42 & 43" },
  items: [{ price: "p_1", quantity: 2 }],
} });
await pay.GetCharges({});
const refused = await pay.PostRefunds({ body: { amount: "five" } }).then(() => "sent", (e) => e.name);
refused
`, c)
	var refused string
	value(t, out, &refused)
	if refused != "ToolValidationError" {
		t.Errorf("a body against its schema: %s, want ToolValidationError", refused)
	}
	got := srv.requests()
	if len(got) != 2 {
		t.Fatalf("server saw %d requests, want 2", len(got))
	}
	want := strings.Join([]string{
		"amount=500", "charge=ch_1",
		"expand%5B0%5D=charge", "expand%5B1%5D=payment_intent",
		"items%5B0%5D%5Bprice%5D=p_1", "items%5B0%5D%5Bquantity%5D=2",
		"metadata%5Border%5D=42%20%26%2043",
		"reason=",
		"tags=a%20b", "tags=c",
	}, "&")
	if post := got[0]; post.Method != "POST" || post.Body != want || post.Header.Get("Content-Type") != "application/x-www-form-urlencoded" {
		t.Errorf("POST sent %s %q (%s),\nwant POST %q (application/x-www-form-urlencoded)", post.Method, post.Body, post.Header.Get("Content-Type"), want)
	}
	if get := got[1]; get.Method != "GET" || get.Body != "" || get.Header.Get("Content-Type") != "" {
		t.Errorf("GET sent a body %q (%s)", get.Body, get.Header.Get("Content-Type"))
	}
	decls := contractOf(t, c).TypeDefinitions()
	if !strings.Contains(decls, "Request body, sent form-encoded") || !strings.Contains(decls, "GetCharges(input?: Record<string, never>)") {
		t.Errorf("declarations do not describe the form body, or give GetCharges one:\n%s", decls)
	}
}
