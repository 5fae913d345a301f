package quickjs

import (
	"context"
	"testing"

	quickjswasi "github.com/aperturerobotics/go-quickjs-wasi-reactor"
	"github.com/tetratelabs/wazero"
)

func TestAddImportToTableKeepsAValidModule(t *testing.T) {
	patched, slot, err := addImportToTable(quickjswasi.QuickJSWASM, "wasi_snapshot_preview1", "environ_sizes_get")
	if err != nil {
		t.Fatal(err)
	}
	if slot == 0 {
		t.Fatal("slot 0 is the null function pointer")
	}
	rt := wazero.NewRuntime(context.Background())
	defer rt.Close(context.Background())
	cm, err := rt.CompileModule(context.Background(), patched)
	if err != nil {
		t.Fatalf("the patched module does not compile: %v", err)
	}
	if len(cm.ExportedFunctions()) == 0 {
		t.Fatal("no exports")
	}
	if _, _, err := addImportToTable(quickjswasi.QuickJSWASM, "wasi_snapshot_preview1", "no_such_import"); err == nil {
		t.Fatal("a missing import was accepted")
	}
	if _, _, err := addImportToTable([]byte("not wasm"), "a", "b"); err == nil {
		t.Fatal("garbage was accepted")
	}
}

func FuzzAddImportToTable(f *testing.F) {
	f.Add(quickjswasi.QuickJSWASM[:200])
	f.Add([]byte("\x00asm\x01\x00\x00\x00"))
	f.Fuzz(func(t *testing.T, b []byte) {
		_, _, _ = addImportToTable(b, "wasi_snapshot_preview1", "environ_sizes_get")
	})
}

// TestAddRejectionTrackerKeepsAValidModule: the module with the tracker
// stub compiles (wazero validates the stub's code and types), holds one
// function more, of the tracker's type, in a slot after the interrupt's,
// and takes the stack guard; a module missing what the stub calls is
// refused.
func TestAddRejectionTrackerKeepsAValidModule(t *testing.T) {
	withInterrupt, interrupt, err := addImportToTable(quickjswasi.QuickJSWASM, "wasi_snapshot_preview1", "environ_sizes_get")
	if err != nil {
		t.Fatal(err)
	}
	patched, slot, err := addRejectionTracker(withInterrupt)
	if err != nil {
		t.Fatal(err)
	}
	if slot != interrupt+1 {
		t.Fatalf("slot %d, want %d", slot, interrupt+1)
	}
	if _, err := instrument(patched); err != nil {
		t.Fatalf("the stack guard refuses the module: %v", err)
	}
	rt := wazero.NewRuntime(context.Background())
	defer rt.Close(context.Background())
	before, err := rt.CompileModule(context.Background(), withInterrupt)
	if err != nil {
		t.Fatal(err)
	}
	after, err := rt.CompileModule(context.Background(), patched)
	if err != nil {
		t.Fatalf("the patched module does not compile: %v", err)
	}
	if len(after.ExportedFunctions()) != len(before.ExportedFunctions()) {
		t.Fatal("the exports changed")
	}
	if _, _, err := addRejectionTracker([]byte("not wasm")); err == nil {
		t.Fatal("garbage was accepted")
	}
	if _, _, err := addRejectionTracker(quickjswasi.QuickJSWASM[:8]); err == nil {
		t.Fatal("an empty module was accepted")
	}
}

func FuzzAddRejectionTracker(f *testing.F) {
	f.Add(quickjswasi.QuickJSWASM[:200])
	f.Add([]byte("\x00asm\x01\x00\x00\x00\x01\x04\x01\x60\x00\x00\x03\x02\x01\x00"))
	f.Fuzz(func(t *testing.T, b []byte) {
		_, _, _ = addRejectionTracker(b)
	})
}
