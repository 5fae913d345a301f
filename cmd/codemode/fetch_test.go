package main

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestRunAllowFetch: --allow-fetch lets a program fetch the test server;
// --fetch-header adds a header from the environment that the program does
// not see; other origins are denied.
func TestRunAllowFetch(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "token=%s", r.Header.Get("X-Token"))
	}))
	defer srv.Close()
	host := strings.TrimPrefix(srv.URL, "http://")
	t.Setenv("CODEMODE_TEST_TOKEN", "s3cret")
	prog := writeFile(t, "f.ts", `export default async function ({ result }: AgentProgramScope) {
  const r = await fetch("`+srv.URL+`/x");
  result.appendText(await r.text());
  try { await fetch("https://example.com/"); } catch (e) { result.appendText(String(e)); }
}`)
	code, stdout, stderr := runCLI(t, "run", "--allow-fetch", host, "--fetch-header", host+"=X-Token:CODEMODE_TEST_TOKEN", prog)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.HasPrefix(stdout, "token=s3cret\nTypeError: fetch https://example.com/: the origin https://example.com is not allowed") {
		t.Fatalf("stdout %q", stdout)
	}
	code, _, stderr = runCLI(t, "run", "--fetch-header", host+"=X-Token:CODEMODE_TEST_TOKEN", prog)
	if code != 2 || !strings.Contains(stderr, "--fetch-header needs --allow-fetch") {
		t.Fatalf("exit %d stderr %q", code, stderr)
	}
}
