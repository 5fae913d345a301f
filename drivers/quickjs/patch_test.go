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
