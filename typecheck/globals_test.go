package typecheck_test

import (
	"context"
	"strings"
	"testing"

	"github.com/codemode-go/codemode/client"
	"github.com/codemode-go/codemode/contract"
	"github.com/codemode-go/codemode/drivers/quickjs"
)

// TestQuickJSDeclarationsMatchItsGlobals: every global a QuickJS program can
// reach is declared for the checker, and every global the driver declares
// beyond ECMAScript exists at run time.
func TestQuickJSDeclarationsMatchItsGlobals(t *testing.T) {
	chk := checker(t)
	rt, err := client.NewRuntime(context.Background(), quickjs.New(quickjs.Options{}))
	if err != nil {
		t.Fatal(err)
	}
	defer rt.Close()
	k, err := contract.New()
	if err != nil {
		t.Fatal(err)
	}
	cl := client.New(rt, k)
	out, err := cl.Run(context.Background(), `export default async function ({ result }) {
  result.appendText(Object.getOwnPropertyNames(globalThis).join(","));
  result.appendText([typeof setTimeout, typeof clearTimeout, typeof console.log].join(","));
}`, client.RunOptions{})
	if err != nil || out.Kind != client.Success {
		t.Fatalf("%+v %v", out, err)
	}
	if out.Content[1].Text != "function,function,function" {
		t.Fatalf("declared globals missing at run time: %s", out.Content[1].Text)
	}
	var refs []string
	for _, name := range strings.Split(out.Content[0].Text, ",") {
		switch name {
		case "globalThis", "undefined", "NaN", "Infinity":
			continue
		}
		refs = append(refs, "typeof "+name)
	}
	src := "export default async function () {\n  void [" + strings.Join(refs, ", ") + "];\n}\n"
	res, err := cl.Validate(context.Background(), chk, src)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Valid {
		t.Fatalf("QuickJS globals the declarations do not know:\n%s", res.Report)
	}
}
