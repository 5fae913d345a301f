package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/google/pprof/profile"
)

// sample is a stack (leaf first) of function names and its CPU time (ns).
type sample struct {
	stack []string
	ns    int64
}

func cpuProfile(samples []sample) *profile.Profile {
	p := &profile.Profile{SampleType: []*profile.ValueType{{Type: "samples", Unit: "count"}, {Type: "cpu", Unit: "nanoseconds"}}}
	funcs := map[string]*profile.Function{}
	for _, s := range samples {
		var locs []*profile.Location
		for _, name := range s.stack {
			f := funcs[name]
			if f == nil {
				f = &profile.Function{ID: uint64(len(funcs) + 1), Name: name}
				funcs[name] = f
				p.Function = append(p.Function, f)
			}
			loc := &profile.Location{ID: uint64(len(p.Location) + 1), Line: []profile.Line{{Function: f}}}
			p.Location = append(p.Location, loc)
			locs = append(locs, loc)
		}
		p.Sample = append(p.Sample, &profile.Sample{Location: locs, Value: []int64{1, s.ns}})
	}
	return p
}

func TestShares(t *testing.T) {
	p := cpuProfile([]sample{
		{[]string{"github.com/tetratelabs/wazero.(*runtime).CompileModule", "main.boot"}, 500e6},
		{[]string{"runtime._ExternalCode", "github.com/tetratelabs/wazero/internal/engine/wazevo.(*callEngine).call"}, 60e6},
		// esbuild's allocations are esbuild's, not the collector's.
		{[]string{"runtime.mallocgc", "github.com/evanw/esbuild/pkg/api.Transform"}, 30e6},
		{[]string{"runtime.gcBgMarkWorker"}, 10e6},
	})
	var in bytes.Buffer
	if err := p.Write(&in); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := run(&in, &out); err != nil {
		t.Fatal(err)
	}
	got := out.String()
	for _, want := range []string{
		"CPU 600 ms, of which 500 ms wazero compiling QuickJS",
		"QuickJS WebAssembly                 60.0%       60 ms",
		"esbuild (TypeScript erasure)        30.0%       30 ms",
		"garbage collector                   10.0%       10 ms",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("output lacks %q:\n%s", want, got)
		}
	}
}

func TestNotACPUProfile(t *testing.T) {
	p := &profile.Profile{SampleType: []*profile.ValueType{{Type: "alloc_space", Unit: "bytes"}}}
	var in bytes.Buffer
	if err := p.Write(&in); err != nil {
		t.Fatal(err)
	}
	err := run(&in, &bytes.Buffer{})
	if err == nil || !strings.Contains(err.Error(), "not a CPU profile") {
		t.Fatalf("error %v, want one saying it is not a CPU profile", err)
	}
	if err := run(strings.NewReader("not a profile"), &bytes.Buffer{}); err == nil || !strings.Contains(err.Error(), "reading the profile") {
		t.Fatalf("error %v for garbage", err)
	}
}
