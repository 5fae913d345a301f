package openapi_test

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"syscall"
	"testing"
	"time"

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
	cpu0 := cpuTime()
	for b.Loop() {
		c, _, err := openapi.Parse(context.Background(), data, openapi.Options{Name: "github"})
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
	b.ReportMetric((cpuTime()-cpu0).Seconds()/float64(b.N), "cpu-s/op")
	b.ReportMetric(float64(declBytes), "decl-bytes")
	b.ReportMetric(float64(methods), "methods")

	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	c, _, err := openapi.Parse(context.Background(), data, openapi.Options{Name: "github"})
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

// cpuTime is the process's user and system CPU time so far, every thread
// (the garbage collector's included): on a shared machine it measures the
// work where wall time also measures the neighbours.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkGitHubStages splits BenchmarkGitHubLoadAndDeclare's work:
// parse (decode, resolve and validate the document, index the
// operations), namespace (the tools' schemas and the components as
// definitions) and contract (declarations printed, tools compiled). Each
// reports its CPU time per operation.
func BenchmarkGitHubStages(b *testing.B) {
	data := githubDescription(b)
	c, _, err := openapi.Parse(context.Background(), data, openapi.Options{Name: "github"})
	if err != nil {
		b.Fatal(err)
	}
	ns, err := c.Namespace()
	if err != nil {
		b.Fatal(err)
	}
	stage := func(name string, f func() error) {
		b.Run(name, func(b *testing.B) {
			cpu0 := cpuTime()
			for b.Loop() {
				if err := f(); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric((cpuTime()-cpu0).Seconds()/float64(b.N), "cpu-s/op")
		})
	}
	stage("parse", func() error {
		_, _, err := openapi.Parse(context.Background(), data, openapi.Options{Name: "github"})
		return err
	})
	stage("namespace", func() error { _, err := c.Namespace(); return err })
	stage("contract", func() error { _, err := contract.NewNamespaced(ns); return err })
}
