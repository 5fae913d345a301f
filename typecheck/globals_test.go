package typecheck_test

import (
	"context"
	"encoding/json"
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

// TestQuickJSDeclaresOnlyWhatItHas: every global the checker completes
// after "globalThis.", every static member of the main constructors and
// namespaces, and every member of instances of the built-in types, exists
// in the QuickJS runtime (issue 4: the declarations once promised Intl,
// Atomics and RegExp.$1, which this QuickJS build lacks). Optional members
// ("return?") are skipped: the declarations do not promise them.
func TestQuickJSDeclaresOnlyWhatItHas(t *testing.T) {
	chk := checker(t)
	files := declarations(t, false)
	// The checker's expression, and the run-time one when it differs.
	exprs := [][2]string{
		{"globalThis"}, {"Object"}, {"Function"}, {"Array"}, {"Promise"}, {"Math"}, {"JSON"}, {"Reflect"}, {"Number"}, {"String"},
		{"Boolean"}, {"Symbol"}, {"Date"}, {"ArrayBuffer"}, {"SharedArrayBuffer"}, {"Error"}, {"AggregateError"}, {"Map"}, {"Set"},
		{"WeakMap"}, {"WeakSet"}, {"WeakRef"}, {"FinalizationRegistry"}, {"Iterator"}, {"BigInt"}, {"RegExp"}, {"DataView"},
		{"Proxy"}, {"Uint8Array"}, {"Float16Array"}, {"BigInt64Array"},
		{"Object.prototype"}, {"(function () {})"}, {"[]"}, {`""`}, {"(0)"}, {"(true)"}, {"0n"}, {"Symbol()"}, {"Promise.resolve(0)"},
		{"new Date()"}, {"/x/"}, {"new Error()"}, {"new Map()"}, {"new Set()"}, {"new WeakMap()"}, {"new WeakRef({})"},
		{"new ArrayBuffer(8)"}, {"new SharedArrayBuffer(8)"}, {"new DataView(new ArrayBuffer(8))"}, {"new Uint8Array(1)"},
		{"new Float16Array(1)"}, {"new BigInt64Array(1)"}, {"[].values()"}, {"Iterator.from([])"}, {"new Map().entries()"},
		{"(async function* () {})()"}, {"(function* () {})()"},
	}
	// Declared by TypeScript but not at run time, and out of reach of the
	// declarations: TypeScript gives every callable the Function
	// interface's `prototype`, which Proxy (like an arrow function) lacks.
	known := map[string]bool{"Proxy.prototype": true}
	names := map[string][]string{}
	for _, e := range exprs {
		src := "export default async function () {}\n" + e[0] + "."
		labels, err := chk.Completions(context.Background(), files, src, 1, len(e[0])+1)
		if err != nil {
			t.Fatal(err)
		}
		if len(labels) == 0 {
			t.Fatalf("no completions after %s.", e[0])
		}
		for _, l := range labels {
			// "Symbol" completes computed members ([Symbol.iterator]);
			// "name?" is an optional member.
			if (l == "Symbol" && e[0] != "globalThis") || strings.HasSuffix(l, "?") || known[e[0]+"."+l] {
				continue
			}
			names[e[0]] = append(names[e[0]], l)
		}
	}
	list, err := json.Marshal(names)
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
  const missing = [];
  for (const [expr, names] of Object.entries(`+string(list)+`)) {
    let value;
    try { value = Object((0, eval)("(" + expr + ")")); } catch (e) { missing.push(expr + " (" + e + ")"); continue; }
    for (const name of names) if (!(name in value)) missing.push(expr + "." + name);
  }
  result.appendText(missing.join("\n"));
}`, client.RunOptions{})
	if err != nil || out.Kind != client.Success {
		t.Fatalf("%+v %v", out, err)
	}
	if missing := out.Content[0].Text; missing != "" {
		t.Fatalf("declared for the checker but missing in QuickJS:\n%s", missing)
	}
}

// TestQuickJSDeclarationsRejectWhatItLacks: programs using what QuickJS
// lacks are rejected, naming it; programs using what it has (ES2025
// features TypeScript declares in the same files) stay valid.
func TestQuickJSDeclarationsRejectWhatItLacks(t *testing.T) {
	chk := checker(t)
	files := declarations(t, false)
	tests := []struct {
		name string
		body string
		code int    // 0: valid
		want string // in the first diagnostic
	}{
		{"Intl", `new Intl.NumberFormat("en").format(1)`, 2708, "Intl"},
		{"Intl in a type stays usable", `((o: Intl.NumberFormatOptions) => o)({})`, 0, ""},
		{"Atomics", `Atomics.load(new Int32Array(1), 0)`, 2693, "Atomics"},
		{"Atomics.waitAsync", `Atomics.waitAsync(new Int32Array(new SharedArrayBuffer(4)), 0, 0)`, 2693, "Atomics"},
		{"RegExp.$1", `RegExp.$1`, 2339, "$1"},
		{"RegExp.lastMatch", `RegExp.lastMatch`, 2339, "lastMatch"},
		{"toLocaleString", `(1).toLocaleString("en") + new Date().toLocaleDateString()`, 0, ""},
		{"SharedArrayBuffer", `new SharedArrayBuffer(8, { maxByteLength: 16 }).grow(16)`, 0, ""},
		{"iterator helpers", `[1, 2].values().map((x) => x * 2).toArray()`, 0, ""},
		{"Promise.try and withResolvers", `[Promise.try(() => 1), Promise.withResolvers<number>()]`, 0, ""},
		{"Float16Array and Math.f16round", `new Float16Array([Math.f16round(1.5)])`, 0, ""},
		{"Set methods", `new Set([1]).union(new Set([2]))`, 0, ""},
		{"sleep with setTimeout", `new Promise((r) => setTimeout(r, 5)).then(() => new Promise((resolve) => setTimeout(resolve, 5)))`, 0, ""},
		{"setTimeout with arguments", `setTimeout((a: number, b: string) => a + b, 5, 1, "x")`, 0, ""},
		{"setTimeout with wrong arguments", `setTimeout((a: number) => a, 5, "x")`, 2345, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := "export default async function () {\n  void (" + tt.body + ");\n}\n"
			res, err := chk.Check(context.Background(), files, src)
			if err != nil {
				t.Fatal(err)
			}
			if tt.code == 0 {
				if !res.Valid {
					t.Fatalf("invalid:\n%s", res.Report)
				}
				return
			}
			if res.Valid {
				t.Fatalf("valid, want TS%d", tt.code)
			}
			if d := res.Diagnostics[0]; d.Code != tt.code || !strings.Contains(d.Message, tt.want) {
				t.Fatalf("first diagnostic TS%d %q, want TS%d mentioning %q", d.Code, d.Message, tt.code, tt.want)
			}
		})
	}
}

// TestProgramCannotWidenTheLibrary: a program's `/// <reference lib="dom" />`
// (or types=, or no-default-lib=) does not make the checker accept what no
// runtime has; the diagnostic keeps the program's own coordinates.
func TestProgramCannotWidenTheLibrary(t *testing.T) {
	chk := checker(t)
	files := declarations(t, false)
	for _, directive := range []string{
		`/// <reference lib="dom" />`,
		`  ///<reference lib="dom"/>`,
		`/// <reference types="node" />`,
		`/// <reference no-default-lib="true" />`,
	} {
		src := directive + "\nexport default async function () {\n  void document.title;\n}\n"
		res, err := chk.Check(context.Background(), files, src)
		if err != nil {
			t.Fatal(err)
		}
		if res.Valid {
			t.Fatalf("%s: document accepted", directive)
		}
		if d := res.Diagnostics[0]; d.Code != 2584 && d.Code != 2304 || d.Line != 3 || d.Column != 8 {
			t.Fatalf("%s: first diagnostic %+v, want TS2304/TS2584 at 3:8", directive, d)
		}
	}
}
