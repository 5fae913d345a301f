package quickjs_test

import (
	"encoding/json"
	"testing"

	"github.com/codemode-go/codemode/drivers/quickjs"
)

// TestRepeatedProgram: a program sent again runs from the bytecode the
// runner keeps (compiled the first time, written to bytecode the second,
// read back from the third) with the outcome of its first run: its value,
// output, and the positions in an error's stack.
func TestRepeatedProgram(t *testing.T) {
	c := newClient(t, quickjs.Options{})
	cases := []struct{ name, src string }{
		{"value", "export default async function ({ console }) {\n  console.log(\"hi\");\n  return { n: 1 + 2 };\n}\n"},
		{"throws", "export default async function () {\n  const x = [1, 2].map((v) => v * 2);\n  throw new TypeError(\"bad \" + x);\n}\n"},
		{"throws at load", "const y = null;\ny.z = 1;\nexport default async function () {}\n"},
		{"import", `import x from "./other.js"; export default async function () { return x; }`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var first []byte
			for i := range 4 {
				out, err := json.Marshal(run(t, c, tc.src))
				if err != nil {
					t.Fatal(err)
				}
				if i == 0 {
					first = out
					continue
				}
				if string(out) != string(first) {
					t.Fatalf("run %d: %s\nfirst run: %s", i+1, out, first)
				}
			}
		})
	}
}
