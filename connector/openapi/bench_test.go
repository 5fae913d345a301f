package openapi_test

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/codemode-go/codemode/connector/openapi"
	"github.com/codemode-go/codemode/contract"
)

// githubDescription is GitHub's REST description from @octokit/openapi
// (installed by scripts/test); the benchmarks skip without it.
func githubDescription(b *testing.B) []byte {
	path := filepath.Join("..", "..", ".tools", "node_modules", "@octokit", "openapi", "generated", "api.github.com.json")
	data, err := os.ReadFile(path)
	if err != nil {
		b.Skipf("GitHub's description not installed (%v); run scripts/test", err)
	}
	return data
}

// BenchmarkGitHubLoadAndDeclare measures what a process does once per
// document: parse, resolve and validate GitHub's description (about 1,000
// operations), index its operations, and print the whole namespace's
// declarations. It reports the declarations' size, the heap in use after
// loading, and the size of describing one method (pulls/create) with
// contract.Namespace.Describer, bounded by typegen.DefaultDescribeChars.
func BenchmarkGitHubLoadAndDeclare(b *testing.B) {
	data := githubDescription(b)
	var declBytes, methods int
	for b.Loop() {
		c, _, err := openapi.Parse(data, openapi.Options{Name: "github"})
		if err != nil {
			b.Fatal(err)
		}
		ns, err := c.Namespace()
		if err != nil {
			b.Fatal(err)
		}
		k, err := contract.NewNamespaced(ns)
		if err != nil {
			b.Fatal(err)
		}
		declBytes, methods = len(k.TypeDefinitions()), len(ns.Tools)
	}
	b.ReportMetric(float64(declBytes), "decl-bytes")
	b.ReportMetric(float64(methods), "methods")

	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	c, _, err := openapi.Parse(data, openapi.Options{Name: "github"})
	if err != nil {
		b.Fatal(err)
	}
	ns, err := c.Namespace()
	if err != nil {
		b.Fatal(err)
	}
	k, err := contract.NewNamespaced(ns)
	if err != nil {
		b.Fatal(err)
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	b.ReportMetric(float64(after.HeapAlloc-before.HeapAlloc)/(1<<20), "heap-MiB")
	runtime.KeepAlive(k)

	d, err := ns.Describer()
	if err != nil {
		b.Fatal(err)
	}
	text, err := d.Tool("pulls_create", 0)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(len(text)), "pulls_create-describe-chars")
}
