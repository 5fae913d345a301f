package openapi_test

import (
	"context"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"

	"github.com/codemode-go/codemode/client"
	"github.com/codemode-go/codemode/connector/openapi"
	"github.com/codemode-go/codemode/contract"
	"github.com/codemode-go/codemode/drivers/quickjs"
)

// An OpenAPI document becomes a namespace with one method per operation;
// the host adds the base URL and the credentials, which the program never
// sees.
func ExampleParse() {
	ctx := context.Background()
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer s3cret" {
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"id": 7, "name": "Rex"}`)
	}))
	defer api.Close()
	doc := []byte(`{"openapi": "3.0.3", "info": {"title": "Pets", "version": "1"},
  "paths": {"/pets/{id}": {"get": {"operationId": "getPet", "summary": "One pet.",
    "parameters": [{"name": "id", "in": "path", "required": true, "schema": {"type": "integer"}}],
    "responses": {"200": {"description": "The pet.", "content": {"application/json": {"schema": {
      "type": "object", "properties": {"id": {"type": "integer"}, "name": {"type": "string"}}}}}}}}}}}`)
	conn, _, err := openapi.Parse(ctx, doc, openapi.Options{Name: "pets", BaseURL: api.URL,
		Headers: http.Header{"Authorization": {"Bearer s3cret"}}})
	if err != nil {
		log.Fatal(err)
	}
	ns, err := conn.Namespace()
	if err != nil {
		log.Fatal(err)
	}
	c, err := contract.NewNamespaced(ns)
	if err != nil {
		log.Fatal(err)
	}
	rt, err := client.NewRuntime(ctx, quickjs.New(quickjs.Options{}))
	if err != nil {
		log.Fatal(err)
	}
	defer rt.Close()

	out, err := client.New(rt, c).RunCode(ctx, `(await pets.getPet({ id: 7 })).name`, client.RunOptions{})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(out.Kind, string(out.Value))
	// Output: success "Rex"
}
