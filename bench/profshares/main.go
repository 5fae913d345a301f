// Command profshares reads a Go CPU profile of code-mode executions (such as
// `go run ./bench/sidebyside -drivers quickjs-inprocess -rows warm
// -cpuprofile F`) and prints where the CPU time went, by part of the
// system: the QuickJS engine's WebAssembly, esbuild's TypeScript erasure,
// JSON Schema validation, the engine reset, the wire, the garbage
// collector, and so on.
//
//	go run ./bench/profshares /tmp/warm.prof
//
// Each sample goes to the first part, in the order of the table in the
// source, that any frame of its stack belongs to: time esbuild spends
// allocating counts as esbuild, not as the garbage collector, whose own
// share is its background work and allocations nothing else claims. Go's
// profiler cannot walk the machine code wazero generates, so the engine's
// WebAssembly is the one runtime._ExternalCode entry (bench/PROFILING.md).
// wazero compiling QuickJS happens once per process (at the first boot,
// without a disk cache); it is printed apart and left out of the shares,
// which are of the rest.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"

	"github.com/google/pprof/profile"
)

// part is one part of the system and the substrings of the function names
// that belong to it.
type part struct {
	name  string
	funcs []string
}

// compileOnce is wazero compiling the QuickJS module, left out of the shares.
const compileOnce = "wazero compiling QuickJS (once per process)"

// parts are tried in this order; a sample no part claims is "other Go".
var parts = []part{
	{compileOnce, []string{"wazero.(*runtime).CompileModule"}},
	{"esbuild (TypeScript erasure)", []string{"github.com/evanw/esbuild"}},
	{"JSON Schema validation", []string{"santhosh-tekuri/jsonschema"}},
	{"QuickJS WebAssembly", []string{"runtime._ExternalCode"}},
	{"engine reset", []string{"drivers/quickjs.(*machine)", "drivers/quickjs.(*dirty"}},
	{"wire (CBOR, pipes)", []string{"codemode/wire.", "fxamacker/cbor", "drivers/quickjs.(*pipe"}},
	{"JSON in Go", []string{"encoding/json", "jsontext"}},
	{"wazero (host calls, memory)", []string{"tetratelabs/wazero"}},
	{"garbage collector", []string{"runtime.gcBgMarkWorker", "runtime.gcDrain", "runtime.mallocgc", "runtime.scanobject", "runtime.bgsweep", "runtime.gcAssist"}},
	{"scheduler, futex, system calls", []string{"runtime.futex", "runtime.schedule", "runtime.findRunnable", "runtime.park_m", "runtime.mcall", "syscall.", "runtime.usleep", "runtime.notesleep", "runtime.stopm", "internal/runtime/syscall"}},
}

func main() {
	flag.Usage = func() {
		fmt.Fprintln(flag.CommandLine.Output(), "usage: profshares CPU.prof")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() != 1 {
		flag.Usage()
		os.Exit(2)
	}
	f, err := os.Open(flag.Arg(0))
	if err != nil {
		fmt.Fprintln(os.Stderr, "profshares:", err)
		os.Exit(1)
	}
	defer f.Close()
	if err := run(f, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "profshares:", err)
		os.Exit(1)
	}
}

// run reads a CPU profile from r and writes the shares to w.
func run(r io.Reader, w io.Writer) error {
	p, err := profile.Parse(r)
	if err != nil {
		return fmt.Errorf("reading the profile: %w", err)
	}
	value := -1
	for i, st := range p.SampleType {
		if st.Type == "cpu" {
			value = i
		}
	}
	if value < 0 {
		return fmt.Errorf("not a CPU profile (sample types %v)", sampleTypes(p))
	}
	totals := map[string]int64{}
	var all int64
	for _, s := range p.Sample {
		v := s.Value[value]
		all += v
		totals[classify(s)] += v
	}
	once := totals[compileOnce]
	delete(totals, compileOnce)
	rest := all - once
	if rest <= 0 {
		return fmt.Errorf("the profile has no samples outside compiling QuickJS")
	}
	names := make([]string, 0, len(totals))
	for n := range totals {
		names = append(names, n)
	}
	sort.Slice(names, func(i, j int) bool { return totals[names[i]] > totals[names[j]] })
	ms := func(ns int64) float64 { return float64(ns) / 1e6 }
	fmt.Fprintf(w, "CPU %.0f ms, of which %.0f ms %s (left out below)\n", ms(all), ms(once), compileOnce)
	for _, n := range names {
		fmt.Fprintf(w, "%-34s %5.1f%%  %7.0f ms\n", n, 100*float64(totals[n])/float64(rest), ms(totals[n]))
	}
	return nil
}

// classify names the first part in parts that a frame of s belongs to.
func classify(s *profile.Sample) string {
	for _, pt := range parts {
		for _, loc := range s.Location {
			for _, line := range loc.Line {
				if line.Function == nil {
					continue
				}
				for _, f := range pt.funcs {
					if strings.Contains(line.Function.Name, f) {
						return pt.name
					}
				}
			}
		}
	}
	return "other Go"
}

func sampleTypes(p *profile.Profile) []string {
	var out []string
	for _, st := range p.SampleType {
		out = append(out, st.Type+"/"+st.Unit)
	}
	return out
}
