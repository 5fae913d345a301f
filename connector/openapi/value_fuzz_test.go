package openapi

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"testing"
	"unicode/utf8"

	"github.com/codemode-go/codemode/internal/membudget"
)

// FuzzResponseValue: whatever a server answers, the program's value is
// valid JSON that gives back the body: JSON as it is, UTF-8 text as a
// string, other bytes in base64; and it is reserved on the call's account.
func FuzzResponseValue(f *testing.F) {
	f.Add("text/plain", []byte("hello \"world\"\n\t\x01</script>"))
	f.Add("application/json", []byte(`{"a":[1,2]}`))
	f.Add("application/json", []byte(`{"a":`))
	f.Add("image/png", []byte{0x89, 'P', 'N', 'G', 0xff, 0})
	f.Add("text/plain", []byte("  "))
	f.Fuzz(func(t *testing.T, contentType string, body []byte) {
		b := membudget.New(1<<30, "bound", nil)
		acct := b.Open()
		data := append(make([]byte, 0, len(body)+1), body...)
		if err := acct.Take(int64(cap(data))); err != nil {
			t.Fatal(err)
		}
		v, err := responseValue(acct, contentType, data)
		if err != nil {
			t.Fatal(err)
		}
		if !json.Valid(v) {
			t.Fatalf("%q is not JSON", v)
		}
		if b.Held() < int64(len(v)) && string(v) != "null" {
			t.Fatalf("a value of %d bytes holds %d", len(v), b.Held())
		}
		var s string
		var bin struct{ Base64 string }
		switch {
		case string(v) == "null":
			if len(bytes.TrimSpace(body)) != 0 {
				t.Fatalf("%q came back as null", body)
			}
		case json.Unmarshal(v, &s) == nil && utf8.Valid(body):
			if s != string(body) && string(v) != string(body) {
				t.Fatalf("text %q came back as %q", body, s)
			}
		case json.Unmarshal(v, &bin) == nil && bin.Base64 != "":
			if dec, _ := base64.StdEncoding.DecodeString(bin.Base64); string(dec) != string(body) {
				t.Fatalf("bytes %q came back as %q", body, dec)
			}
		}
	})
}
