package node

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/codemode-go/codemode/drivers"
)

// TypesVersion is the @types/node version the tests and scripts/test use:
// the newest 24.x when it was pinned. Any @types/node whose major version is
// at least 24 is accepted.
const TypesVersion = "24.19.4"

// ErrTypesNotInstalled is returned (wrapped) by Driver.TypeDefinitionFiles
// when no @types/node is found. Its message says
// how to install it.
var ErrTypesNotInstalled = errors.New("node: no @types/node found (looked for node_modules/@types/node and .tools/node_modules/@types/node in the working directory and its parents); install it with: npm install --prefix .tools @types/node@" + TypesVersion + ", or set Options.TypesDir")

// typesEntry is the name of the top-level declaration file that
// typeDefinitionFilesFromDir returns beside the package files: it
// references node_modules/@types/node/index.d.ts, which pulls in the rest.
const typesEntry = "node-types.d.ts"

// findTypes looks for the @types/node package directory from dir upwards:
// in each folder, node_modules/@types/node, then .tools/node_modules/@types/node.
// It returns the first that holds an index.d.ts, or ErrTypesNotInstalled.
func findTypes(dir string) (string, error) {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("node: finding @types/node from %q: %w", dir, err)
	}
	for d := dir; ; d = filepath.Dir(d) {
		for _, c := range []string{
			filepath.Join(d, "node_modules", "@types", "node"),
			filepath.Join(d, ".tools", "node_modules", "@types", "node"),
		} {
			if _, err := os.Stat(filepath.Join(c, "index.d.ts")); err == nil {
				return c, nil
			}
		}
		if filepath.Dir(d) == d {
			return "", ErrTypesNotInstalled
		}
	}
}

// typeDefinitionFilesFromDir returns the declarations of the Node.js
// runtime from an installed @types/node package directory (dir holds its
// package.json and index.d.ts), for the TypeScript checker
// (typecheck.File). The files are every .d.ts of the package, named
// "node_modules/@types/node/<path>" (except its ts5.* folders, which only
// older TypeScript versions read), every .d.ts of its dependency
// undici-types, named "node_modules/undici-types/<path>" (found where
// Node.js resolution from dir would find it), and node-types.d.ts, a top-level
// file that references the package's index.d.ts.
//
// # Errors
//
//   - dir has no package.json naming @types/node, or its major version is
//     older than 24;
//   - undici-types is not installed beside it;
//   - a file cannot be read.
func typeDefinitionFilesFromDir(dir string) ([]drivers.TypeDefinitionFile, error) {
	raw, err := os.ReadFile(filepath.Join(dir, "package.json"))
	if err != nil {
		return nil, fmt.Errorf("node: reading @types/node: %w", err)
	}
	var pkg struct{ Name, Version string }
	if err := json.Unmarshal(raw, &pkg); err != nil {
		return nil, fmt.Errorf("node: reading %s: %w", filepath.Join(dir, "package.json"), err)
	}
	if pkg.Name != "@types/node" {
		return nil, fmt.Errorf("node: %s is package %q, not @types/node", dir, pkg.Name)
	}
	major, _ := strconv.Atoi(strings.SplitN(pkg.Version, ".", 2)[0])
	if major < minimumMajorVersion {
		return nil, fmt.Errorf("node: %s is @types/node %s; version %d or newer is required (npm install --prefix .tools @types/node@%s)", dir, pkg.Version, minimumMajorVersion, TypesVersion)
	}
	files, err := declarationFiles(dir, "node_modules/@types/node")
	if err != nil {
		return nil, err
	}
	undici, err := findPackage(dir, "undici-types")
	if err != nil {
		return nil, err
	}
	more, err := declarationFiles(undici, "node_modules/undici-types")
	if err != nil {
		return nil, err
	}
	files = append(files, more...)
	files = append(files, drivers.TypeDefinitionFile{
		Name: typesEntry,
		Text: "// The Node.js " + strconv.Itoa(major) + " runtime's declarations (@types/node " + pkg.Version + ").\n/// <reference path=\"node_modules/@types/node/index.d.ts\" />\n",
	})
	return files, nil
}

// findPackage finds package name the way Node.js resolution from dir does:
// dir/node_modules/name, then name beside each enclosing node_modules.
func findPackage(dir, name string) (string, error) {
	for d := dir; ; d = filepath.Dir(d) {
		candidates := []string{filepath.Join(d, "node_modules", name)}
		if filepath.Base(d) == "node_modules" {
			candidates = append(candidates, filepath.Join(d, name))
		}
		for _, c := range candidates {
			if _, err := os.Stat(filepath.Join(c, "index.d.ts")); err == nil {
				return c, nil
			}
		}
		if filepath.Dir(d) == d {
			return "", fmt.Errorf("node: %s, which @types/node imports, is not installed beside %s (npm installs it with @types/node)", name, dir)
		}
	}
}

// declarationFiles reads every .d.ts under dir, named prefix/<path>,
// skipping nested node_modules and the ts5.* folders that typesVersions
// sends older TypeScript versions to.
func declarationFiles(dir, prefix string) ([]drivers.TypeDefinitionFile, error) {
	var files []drivers.TypeDefinitionFile
	err := filepath.WalkDir(dir, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if e.IsDir() {
			if p != dir && (e.Name() == "node_modules" || strings.HasPrefix(e.Name(), "ts5.")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(e.Name(), ".d.ts") {
			return nil
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		text, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		files = append(files, drivers.TypeDefinitionFile{Name: path.Join(prefix, filepath.ToSlash(rel)), Text: string(text)})
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("node: reading declarations in %s: %w", dir, err)
	}
	sort.Slice(files, func(i, j int) bool { return files[i].Name < files[j].Name })
	return files, nil
}

// TypeDefinitionFiles returns the declarations of what the Node.js runtime
// provides (the node: modules, process, Buffer and the other globals),
// read from the @types/node package in Options.TypesDir, or found from
// Options.Dir (default the working directory) upwards in node_modules and
// .tools/node_modules: every .d.ts of the package, named
// "node_modules/@types/node/<path>" (except its ts5.* folders, which only
// older TypeScript versions read), every .d.ts of its dependency
// undici-types, named "node_modules/undici-types/<path>", and
// node-types.d.ts, a top-level file that references the package's
// index.d.ts. The files are read once per Driver and reused; an error is
// not remembered, so installing the package later is seen. It returns
// ErrTypesNotInstalled (wrapped) when no @types/node is found, and an
// error when the package is not @types/node 24 or newer, undici-types is
// not installed beside it, or a file cannot be read.
func (d *Driver) TypeDefinitionFiles(ctx context.Context) ([]drivers.TypeDefinitionFile, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	d.typesMu.Lock()
	defer d.typesMu.Unlock()
	if d.types != nil {
		return slices.Clone(d.types), nil
	}
	dir := d.opts.TypesDir
	if dir == "" {
		from := d.opts.Dir
		if from == "" {
			wd, err := os.Getwd()
			if err != nil {
				return nil, fmt.Errorf("node: finding @types/node: %w", err)
			}
			from = wd
		}
		var err error
		if dir, err = findTypes(from); err != nil {
			return nil, err
		}
	}
	files, err := typeDefinitionFilesFromDir(dir)
	if err != nil {
		return nil, err
	}
	d.types = files
	return slices.Clone(files), nil
}
