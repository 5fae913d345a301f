package codeform_test

import (
	"testing"

	"github.com/codemode-go/codemode/internal/codeform"
)

func TestExportDefault(t *testing.T) {
	for _, tc := range []struct {
		code   string
		offset int
		length int
	}{
		{"export default async () => 1", 0, 14},
		{"const a = 1; export default async () => a;", 13, 14},
		{"const a = 1;\nexport   default () => a", 13, 16},
		{"export\ndefault 1", 0, 14},
		{`const s = "export default 1"; s`, -1, 0},
		{"// export default 1\n1", -1, 0},
		{"function f() { return `export default ${1}`; }\nf()", -1, 0},
		{"async () => { export default 1 }", -1, 0},
		{"1", -1, 0},
	} {
		if at, n := codeform.ExportDefault(tc.code); at != tc.offset || n != tc.length {
			t.Errorf("ExportDefault(%q) = %d, %d; want %d, %d", tc.code, at, n, tc.offset, tc.length)
		}
	}
}
