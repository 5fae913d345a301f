package quickjs_test

import (
	"context"
	"os"
	"testing"

	"github.com/codemode-go/codemode/client"
	"github.com/codemode-go/codemode/contract"
	"github.com/codemode-go/codemode/drivers/quickjs"
)

// TestURLTestData runs the WHATWG URL test data of web-platform-tests
// (url/resources/urltestdata.json; the file named by
// $CODEMODE_URLTESTDATA, skipped when unset: it is not part of this
// repository) against the sandbox's URL, as WPT's url-constructor.any.js
// does: a case with "failure" must throw a TypeError (and URL.canParse
// must be false), any other must parse to the expected components.
func TestURLTestData(t *testing.T) {
	path := os.Getenv("CODEMODE_URLTESTDATA")
	if path == "" {
		t.Skip("set CODEMODE_URLTESTDATA to a urltestdata.json from web-platform-tests")
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	rt, err := client.NewRuntime(context.Background(), quickjs.New(quickjs.Options{}))
	if err != nil {
		t.Fatal(err)
	}
	defer rt.Close()
	k, err := contract.New()
	if err != nil {
		t.Fatal(err)
	}
	out, err := client.New(rt, k).Run(context.Background(), `export default async function ({ result }) {
  const cases = `+string(data)+`;
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
}`, client.RunOptions{})
	if err != nil || out.Kind != client.Success {
		t.Fatalf("%+v %v", out, err)
	}
	t.Log(out.Content[0].Text)
	if out.Content[1].Text != "" {
		t.Errorf("failures:\n%s", out.Content[1].Text)
	}
}
