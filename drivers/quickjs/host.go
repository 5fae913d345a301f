package quickjs

import (
	"context"
	"fmt"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/imports/wasi_snapshot_preview1"
	"github.com/tetratelabs/wazero/sys"
)

// interruptOpaque is the opaque argument the driver registers with
// JS_SetInterruptHandler. It is above any address the engine's memory can
// have, so a call carrying it is never libc asking for the environment.
const interruptOpaque = 0x7FFFFFF0

// exitInterrupted is the exit code of an engine stopped at an interrupt.
const exitInterrupted = 124

// instantiateHostWASI provides the module's WASI imports: wazero's
// implementation, except environ_sizes_get, which doubles as QuickJS's
// interrupt handler (patch.go). As an interrupt handler it stops the engine
// when the execution's context is done; as itself it reports an empty
// environment.
func instantiateHostWASI(ctx context.Context, rt wazero.Runtime) error {
	b := rt.NewHostModuleBuilder(wasi_snapshot_preview1.ModuleName)
	wasi_snapshot_preview1.NewFunctionExporter().ExportFunctions(b)
	b.NewFunctionBuilder().
		WithGoModuleFunction(api.GoModuleFunc(environSizesGet), []api.ValueType{api.ValueTypeI32, api.ValueTypeI32}, []api.ValueType{api.ValueTypeI32}).
		WithParameterNames("count", "size").
		Export("environ_sizes_get")
	if _, err := b.Instantiate(ctx); err != nil {
		return fmt.Errorf("quickjs: instantiating WASI: %w", err)
	}
	return nil
}

func environSizesGet(ctx context.Context, m api.Module, stack []uint64) {
	countPtr, sizePtr := uint32(stack[0]), uint32(stack[1])
	if sizePtr == interruptOpaque {
		// QuickJS's interrupt poll, with the context of the call into the
		// engine, which is the execution's.
		if ctx.Err() != nil {
			if site, ok := ctx.Value(stopSiteKey{}).(*stopSite); ok {
				busyFor(ctx) // capture calls into the engine for up to stopSiteTimeout
				site.capture(m)
			}
			_ = m.CloseWithExitCode(context.Background(), exitInterrupted)
			panic(sys.NewExitError(exitInterrupted))
		}
		pollEngineRun(ctx)
		stack[0] = 0
		return
	}
	mem := m.Memory()
	if !mem.WriteUint32Le(countPtr, 0) || !mem.WriteUint32Le(sizePtr, 0) {
		stack[0] = 21 // EFAULT
		return
	}
	stack[0] = 0
}
