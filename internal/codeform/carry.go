package codeform

import (
	"encoding/json"
	"strconv"
	"strings"

	"github.com/codemode-go/codemode/internal/blank"
)

// Binding is one binding a session carries into a program's module.
type Binding struct {
	// Name is the binding's name, an identifier.
	Name string
	// JSON is its value as JSON text, or Source the source text of a
	// function or class (Function.prototype.toString). Both empty: the
	// binding is declared holding undefined (also how the type checker
	// sees every binding).
	JSON, Source string
}

// Carry is what a session adds to a program's module (NormalizeCarry).
//
// Restore's bindings are declared with let, type any, on the module's
// first line, in a function scope around the code's own: the code sees them
// and may assign them, and may declare the same names again in its own
// scope. Values come back with the realm's JSON.parse (taken before
// anything runs, so a binding named JSON does not get in the way),
// functions and classes by evaluating their source in a function placed
// after the code (their positions are the wrapper's).
//
// When Capture is not nil, a program in the statement form that completes
// (returns or falls off its end) resolves to {value?, session}, where
// session is {values, functions, lost}: for each name in Capture and
// Restore that the code's scope defines when it ends, values holds its JSON
// text, functions the source of a function or class, and lost why a value
// could not be kept (a Map, a Date, a BigInt, NaN, undefined inside an
// object, a cycle). Each name is read in a try/catch, so a name the code
// never defined is left out and a read never breaks the program; the
// module encodes with the JSON.stringify, Function.prototype.toString and
// Object functions of the realm as it was before the code ran. Other forms
// get the bindings but capture nothing.
//
// Names of the scope (names) and names starting with __codemode are never
// restored or captured.
type Carry struct {
	Restore []Binding
	Capture []string
}

// carried is a Carry as the text the module adds. With a Carry, the
// wrapper's outer function takes the realm's intrinsics and runs the rest
// in a nested async function that holds the restored bindings, so that a
// binding named like a global the wrapper or the scope setup uses (JSON,
// Object) shadows it for the code alone.
type carried struct {
	open     string // line 1, before the code's scope opens: the nested function, the restored bindings
	opener   string // the reads, at the start of the code's own scope (line 1)
	ret      string // the statement form's return
	tail     string // after the code: hoisted helpers, and the nested function's close
	captures bool
}

// restoreOnly is c without capturing, for the function forms.
func (c *carried) restoreOnly() *carried {
	return &carried{open: c.open, tail: c.tail, ret: returnValue}
}

// intrinsicsFunction takes what the wrapper needs from the realm before
// any code runs, and encodes a session's bindings after the code (see
// Carry): capture reads them through the reads a box holds. The object it
// returns is frozen, in a const, and the functions it holds are closures no
// name in the code reaches, so a program can neither replace them nor
// reach the genuine Function.prototype.toString they use: every carried
// function's source is what the engine says it is (the adversarial review
// of 2026-12-06 made a session carry text of its own by replacing them).
// The objects capture returns have no prototype, so no setter or toJSON a
// program puts on Object.prototype changes them.
const intrinsicsFunction = ` function __codemodeIntrinsics(): any {
  const I: any = { parse: JSON.parse, stringify: JSON.stringify, isArray: Array.isArray, proto: Object.getPrototypeOf, keys: Object.keys,
    objectProto: Object.prototype, source: Function.prototype.call.bind(Function.prototype.toString), freeze: Object.freeze };
  I.box = function (): any {
    let held: any, set = false;
    return I.freeze({ __proto__: null, set(reads: any) { if (!set) { set = true; held = reads; } }, get() { return held; } });
  };
  I.capture = function (box: any): any {
    const values: any = { __proto__: null }, functions: any = { __proto__: null }, lost: any = { __proto__: null };
    const reads = box.get();
    if (reads === undefined) return { __proto__: null, values, functions, lost };
    const names = I.keys(reads);
    for (let i = 0; i < names.length; i++) {
      const name = names[i];
      let v: any;
      try { v = reads[name](); } catch { continue; }
      try {
        if (typeof v === "function") { functions[name] = I.source(v); continue; }
        if (v === undefined) { values[name] = ""; continue; }
        const why = plain(v, "", []);
        if (why !== "") { lost[name] = why; continue; }
        values[name] = I.stringify(v);
      } catch { lost[name] = "not serialisable"; }
    }
    return { __proto__: null, values, functions, lost };
  };
  function plain(v: any, path: string, seen: any[]): string {
    const at = path === "" ? "" : " at " + path;
    switch (typeof v) {
      case "string": case "boolean": return "";
      case "number": return v === v && v !== Infinity && v !== -Infinity ? "" : "the number " + v + at;
      case "object": break;
      default: return (v === undefined ? "undefined" : "a " + typeof v) + at;
    }
    if (v === null) return "";
    for (let i = 0; i < seen.length; i++) if (seen[i] === v) return "a cycle" + at;
    if (seen.length >= 64) return "nesting deeper than 64" + at;
    seen[seen.length] = v;
    let why = "";
    if (I.isArray(v)) {
      for (let i = 0; i < v.length && why === ""; i++) why = plain(v[i], path + "[" + i + "]", seen);
    } else {
      const p = I.proto(v);
      if (p !== I.objectProto && p !== null) {
        let kind = "an object";
        try { kind = "a " + v.constructor.name; } catch {}
        why = kind + at;
      } else {
        const keys = I.keys(v);
        for (let i = 0; i < keys.length && why === ""; i++) why = plain(v[keys[i]], path + "." + keys[i], seen);
      }
    }
    seen.length = seen.length - 1;
    return why;
  }
  return I.freeze(I);
}`

// module returns c as module text for code in a scope with names.
func (c *Carry) module(names []string) *carried {
	out := &carried{ret: returnValue}
	if c == nil {
		return out
	}
	skip := func(n string) bool {
		return !isIdentifier(n) || strings.HasPrefix(n, "__codemode") || contains(names, n)
	}
	restore, tail, kept := c.restore(skip)
	open := "const __codemodeI = __codemodeIntrinsics(); return await (async () => { " + restore
	closing := " })();" + intrinsicsFunction
	out.open, out.tail = open, tail+closing
	if c.Capture == nil {
		return out
	}
	var reads strings.Builder
	seen := map[string]bool{}
	for _, n := range append(kept, c.Capture...) {
		if skip(n) || seen[n] {
			continue
		}
		seen[n] = true
		reads.WriteString(" " + n + ": () => " + n + ",")
	}
	out.captures = true
	out.open += "const __codemodeReads: any = __codemodeI.box(); "
	out.opener = " __codemodeReads.set({" + reads.String() + " });"
	out.ret = "const __codemodeOut: any = { __proto__: null, session: __codemodeI.capture(__codemodeReads) }; " +
		"if (" + valueVar + " !== undefined) __codemodeOut.value = " + valueVar + "; return __codemodeOut;"
	out.tail = tail + closing
	return out
}

// restore returns the declarations of c's bindings (line 1), the hoisted
// functions that evaluate their sources, and the names declared. Values
// come first, then functions and classes in the session's order: a class
// may extend one restored before it. A source that fails to evaluate
// leaves its binding undefined rather than failing the program.
func (c *Carry) restore(skip func(string) bool) (decls, fns string, kept []string) {
	var restore, tail strings.Builder
	seen := map[string]bool{}
	for _, functions := range []bool{false, true} {
		for i, b := range c.Restore {
			if skip(b.Name) || seen[b.Name] || functions != (b.Source != "") {
				continue
			}
			seen[b.Name] = true
			kept = append(kept, b.Name)
			switch {
			case b.Source != "":
				fn := "__codemodeRestore" + strconv.Itoa(i)
				restore.WriteString("let " + b.Name + ": any = " + fn + "(); ")
				tail.WriteString(" function " + fn + "(): any { try { return (\n" + b.Source + "\n); } catch { return undefined; } }")
			case b.JSON != "":
				q, _ := json.Marshal(b.JSON) // a JavaScript string literal without a line break
				restore.WriteString("let " + b.Name + ": any = __codemodeI.parse(" + string(q) + "); ")
			default:
				restore.WriteString("let " + b.Name + ": any; ")
			}
		}
	}
	return restore.String(), tail.String(), kept
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// IsExpression reports whether src (a function's or class's source, as
// Function.prototype.toString gives it) parses as one expression, so that
// a session can evaluate it again, and reads the same as TypeScript as it
// did as JavaScript: the blanker takes it and blanks nothing. The source
// is JavaScript, but the next program's module is read as TypeScript, where
// `a < b > /…/` is an instantiation expression and a division, not two
// comparisons and a regular expression: a source built so (with new
// Function or eval) closed its function early and ran code of its own at
// restore (the second adversarial review of 2026-12-06). Each reading that
// differs makes TypeScript syntax the blanker would blank, so a source it
// changes, or refuses, is not carried. esbuild is not asked: it would read
// hostile text on the host.
func IsExpression(src string) bool {
	if strings.Contains(src, "[native code]") {
		return false
	}
	wrapped := "(\n" + src + "\n);"
	js, ok := blank.Types(wrapped)
	return ok && js == wrapped
}
