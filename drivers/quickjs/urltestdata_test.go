package quickjs_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/codemode-go/codemode/client"
	"github.com/codemode-go/codemode/contract"
	"github.com/codemode-go/codemode/drivers/quickjs"
)

// wptData reads a web-platform-tests URL data file: testdata/wpt/name, or
// the file $CODEMODE_URLTESTDATA names for urltestdata.json (to try a newer
// copy).
func wptData(t *testing.T, name string) string {
	t.Helper()
	path := filepath.Join("testdata", "wpt", name)
	if env := os.Getenv("CODEMODE_URLTESTDATA"); env != "" && name == "urltestdata.json" {
		path = env
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// runWPT runs program on an in-sandbox runtime and fails the test with the
// failures the program lists in its second content item; the first says
// how many cases passed.
func runWPT(t *testing.T, program string) {
	t.Helper()
	rt, err := client.NewRuntime(context.Background(), quickjs.New(quickjs.Options{}))
	if err != nil {
		t.Fatal(err)
	}
	defer rt.Close()
	k, err := contract.New()
	if err != nil {
		t.Fatal(err)
	}
	out, err := client.New(rt, k).Run(context.Background(), program, client.RunOptions{})
	if err != nil || out.Kind != client.Success {
		t.Fatalf("%+v %v", out, err)
	}
	t.Log(out.Content[0].Text)
	if out.Content[1].Text != "" {
		t.Errorf("failures:\n%s", out.Content[1].Text)
	}
}

// TestURLTestData runs the WHATWG URL test data of web-platform-tests
// (url/resources/urltestdata.json, in testdata/wpt) against the sandbox's
// URL, as WPT's url-constructor.any.js does: a case with "failure" must
// throw a TypeError (and URL.canParse must be false), any other must parse
// to the expected components.
func TestURLTestData(t *testing.T) {
	runWPT(t, `export default async function ({ result }) {
  const cases = `+wptData(t, "urltestdata.json")+`;
  let pass = 0, fail = 0;
  const failures = [];
  const keys = ["href", "origin", "protocol", "username", "password", "host", "hostname", "port", "pathname", "search", "hash"];
  for (const c of cases) {
    if (typeof c === "string") continue;
    const label = JSON.stringify(c.input) + (c.base === null ? "" : " against " + JSON.stringify(c.base));
    let problem = "";
    try {
      const url = c.base === null ? new URL(c.input) : new URL(c.input, c.base);
      if (c.failure) problem = "parsed as " + url.href + ", want failure";
      else for (const k of keys) if (k in c && url[k] !== c[k]) { problem = k + " " + JSON.stringify(url[k]) + ", want " + JSON.stringify(c[k]); break; }
      if (!problem && "searchParams" in c && url.searchParams.toString() !== c.searchParams) problem = "searchParams " + url.searchParams;
    } catch (e) {
      if (!c.failure) problem = "threw " + e;
      else if (!(e instanceof TypeError)) problem = "threw " + e + ", want a TypeError";
    }
    if (!problem && URL.canParse(c.input, c.base === null ? undefined : c.base) === !!c.failure) problem = "URL.canParse disagrees";
    if (problem) { fail++; failures.push(label + ": " + problem); } else pass++;
  }
  result.appendText(pass + " passed, " + fail + " failed");
  result.appendText(failures.join("\n"));
}`)
}

// TestURLToASCII runs web-platform-tests' url/resources/toascii.json (in
// testdata/wpt) as WPT's toascii.window.js does: each input as the host of
// https://INPUT/x must give the expected host, or throw a TypeError when
// the expected output is null; setting host and hostname to the input
// must give the same host, or leave the URL unchanged. The cases cover
// both the ASCII fast path and the UTS #46 processing loaded on demand.
func TestURLToASCII(t *testing.T) {
	runWPT(t, `export default async function ({ result }) {
  const cases = `+wptData(t, "toascii.json")+`;
  let pass = 0, fail = 0;
  const failures = [];
  for (const c of cases) {
    if (typeof c === "string") continue;
    const problems = [];
    try {
      const url = new URL("https://" + c.input + "/x");
      if (c.output === null) problems.push("parsed as " + url.host + ", want failure");
      else {
        if (url.host !== c.output) problems.push("host " + JSON.stringify(url.host));
        if (url.hostname !== c.output) problems.push("hostname " + JSON.stringify(url.hostname));
        if (url.pathname !== "/x") problems.push("pathname " + JSON.stringify(url.pathname));
        if (url.href !== "https://" + c.output + "/x") problems.push("href " + JSON.stringify(url.href));
      }
    } catch (e) {
      if (c.output !== null) problems.push("threw " + e);
      else if (!(e instanceof TypeError)) problems.push("threw " + e + ", want a TypeError");
    }
    for (const setter of ["host", "hostname"]) {
      const url = new URL("https://x/x");
      url[setter] = c.input;
      const want = c.output === null ? "x" : c.output;
      if (url[setter] !== want) problems.push(setter + " setter gave " + JSON.stringify(url[setter]));
    }
    if (problems.length) { fail++; failures.push(JSON.stringify(c.input) + " (want " + JSON.stringify(c.output) + "): " + problems.join("; ")); } else pass++;
  }
  result.appendText(pass + " passed, " + fail + " failed");
  result.appendText(failures.join("\n"));
}`)
}
