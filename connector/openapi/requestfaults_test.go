package openapi_test

import (
	"net/http"
	"strings"
	"testing"
)

// TestRequestFaultsNamedTogether: a call whose body breaks its schema in
// several places, beside a bad parameter, fails once naming every place
// by its pointer from the input's root (/body/name, /body/photoUrls/0,
// /petId), not only the first; nothing is sent.
func TestRequestFaultsNamedTogether(t *testing.T) {
	sent := 0
	srv := newAPIServer(t, func(r *http.Request) (int, string, string) {
		sent++
		return 200, "application/json", `{}`
	})
	c := load(t, "3.0/json/petstore.json", "petstore", srv.URL+"/v3")
	out := runCode(t, `
let a, b;
try { await petstore.addPet({ body: { name: 7, photoUrls: [1] } } as any); } catch (e) { a = e.name + ": " + e.message; }
try { await petstore.updatePetWithForm({ petId: "x", name: 3 } as any); } catch (e) { b = e.name + ": " + e.message; }
({ a, b })
`, c)
	var v struct{ A, B string }
	value(t, out, &v)
	for _, want := range []string{"ToolValidationError", "/body/name: ", "/body/photoUrls/0: "} {
		if !strings.Contains(v.A, want) {
			t.Errorf("addPet's error lacks %q:\n%s", want, v.A)
		}
	}
	if strings.Contains(v.A, "/body: /") {
		t.Errorf("addPet's error names a place twice:\n%s", v.A)
	}
	for _, want := range []string{"/petId: ", "/name: "} {
		if !strings.Contains(v.B, want) {
			t.Errorf("updatePetWithForm's error lacks %q:\n%s", want, v.B)
		}
	}
	if sent != 0 {
		t.Errorf("%d requests were sent", sent)
	}
}
