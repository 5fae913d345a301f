package typecheck_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codemode-go/codemode/typecheck"
)

// secretFiles writes files holding a secret in a temporary folder: a module
// exporting it, a script declaring it as a global, and JSON with it as a
// key. The programs below assign them where the compiler's message would
// print the secret's literal type or the JSON's keys, had it read them.
func secretFiles(t *testing.T, secret string) string {
	t.Helper()
	dir := t.TempDir()
	for name, text := range map[string]string{
		"secret.ts":   "export const secret = " + `"` + secret + `"` + " as const;\n",
		"global.d.ts": "declare const leaked: " + `"` + secret + `"` + ";\n",
		"secret.json": `{"` + secret + `": 1}`,
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestCheckNeverReadsHostFiles: a program that imports a file of the host
// (by absolute or relative path, as a module, a type, JSON or a reference)
// gets "Cannot find module" naming its own specifier, and the report holds
// nothing of the file.
func TestCheckNeverReadsHostFiles(t *testing.T) {
	c := checker(t)
	const secret = "s3cret-9b7e-do-not-print"
	dir := secretFiles(t, secret)
	rel, err := filepath.Rel(os.TempDir(), dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, src string
	}{
		{"absolute .ts import", `import { secret } from "` + dir + `/secret";
export default async function () { const n: 1 = secret; void n; }`},
		{"absolute .ts import with its extension", `import { secret } from "` + dir + `/secret.ts";
export default async function () { const n: 1 = secret; void n; }`},
		{"absolute JSON import", `import data from "` + dir + `/secret.json";
export default async function () { const n: number = data; void n; }`},
		{"relative import climbing out", `import { secret } from "../../../../../../../../` + filepath.ToSlash(filepath.Join(strings.TrimPrefix(os.TempDir(), "/"), rel)) + `/secret";
export default async function () { const n: 1 = secret; void n; }`},
		{"import type", `export default async function () { const n: 1 = (null as unknown as typeof import("` + dir + `/secret")).secret; void n; }`},
		{"dynamic import", `export default async function () { const m = await import("` + dir + `/secret"); const n: 1 = m.secret; void n; }`},
		{"reference path", `/// <reference path="` + dir + `/global.d.ts" />
export default async function () { const n: 1 = leaked; void n; }`},
		{"module augmentation", `import { secret } from "` + dir + `/secret";
declare module "` + dir + `/secret" { const other: number; }
export default async function () { const n: 1 = secret; void n; }`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := c.Check(context.Background(), declarationsFor(t), tc.src)
			if err != nil {
				t.Fatal(err)
			}
			if res.Valid {
				t.Fatalf("a program importing a host file was valid")
			}
			if strings.Contains(res.Report, secret) || strings.Contains(res.Report, "do-not-print") {
				t.Fatalf("the report holds the file's contents:\n%s", res.Report)
			}
			for _, d := range res.Diagnostics {
				if strings.Contains(d.Message, secret) {
					t.Fatalf("a diagnostic holds the file's contents: %+v", d)
				}
			}
		})
	}
}

// TestCheckImportDirAllowsAFolder: with Options.ImportDir a program may
// import that folder's files, and only them.
func TestCheckImportDirAllowsAFolder(t *testing.T) {
	allowed := t.TempDir()
	if err := os.WriteFile(filepath.Join(allowed, "helpers.ts"), []byte("export const answer = 42 as const;\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := typecheck.New(typecheck.Options{ImportDir: allowed})
	if err != nil {
		t.Skip(err)
	}
	defer c.Close()
	res, err := c.Check(context.Background(), declarationsFor(t), `import { answer } from "`+allowed+`/helpers";
export default async function () { const n: 42 = answer; void n; }`)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Valid {
		t.Fatalf("an import from ImportDir was refused:\n%s", res.Report)
	}
	dir := secretFiles(t, "elsewhere-secret")
	res, err = c.Check(context.Background(), declarationsFor(t), `import { secret } from "`+dir+`/secret";
export default async function () { const n: 1 = secret; void n; }`)
	if err != nil {
		t.Fatal(err)
	}
	if res.Valid || strings.Contains(res.Report, "elsewhere-secret") || !strings.Contains(res.Report, "TS2307") {
		t.Fatalf("an import outside ImportDir: valid %v\n%s", res.Valid, res.Report)
	}
}
