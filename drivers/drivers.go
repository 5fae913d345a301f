package drivers

import (
	"context"
	"io"
)

// Driver boots execution environments. It is the driver author's surface:
// a driver moves bytes between the host and a runner it starts, and never
// sees tools, schemas, execution ids or the encoding
// (https://github.com/torkbot/code-mode#authoring-a-runtime-driver). Users do not call a Driver: they pass it to
// client.NewRuntime, which owns the runner source, handshake, ids,
// correlation and failed-boot cleanup.
type Driver interface {
	// Description is opaque text about the environment that an embedder may
	// show an agent.
	Description() string
	// TypeDefinitionFiles returns checker-only declarations for what the
	// environment provides beyond the contract's declarations.
	TypeDefinitionFiles(ctx context.Context) ([]TypeDefinitionFile, error)
	// Connect boots an environment, attaches a runner built from
	// req.RunnerSource (or an equivalent runner of the driver's own that
	// speaks the same protocol) to a byte channel, and returns the
	// connection. ctx governs boot only; once Connect returns, the
	// connection lives until Close or until the environment ends.
	Connect(ctx context.Context, req ConnectRequest) (Connection, error)
}

// ConnectRequest is what the client factory gives a driver at boot.
type ConnectRequest struct {
	// RunnerSource is the version-matched runner bundle (package runner's
	// Source): a self-contained script defining the global CodeModeRunner.
	RunnerSource string
}

// Connection is a booted environment with a runner attached.
type Connection interface {
	// Channel is the full-duplex byte channel to the runner.
	Channel() io.ReadWriteCloser
	// Done is closed when the environment has ended, for whatever reason.
	Done() <-chan struct{}
	// Err is nil while running and after an orderly end, and the cause after
	// a failure.
	Err() error
	// Close ends the environment and returns once its resources have
	// stopped. It is safe to call more than once.
	Close() error
}

// TypeDefinitionFile is one declaration file for the TypeScript checker.
type TypeDefinitionFile struct {
	Name string // file name, e.g. "quickjs-globals.d.ts"
	Text string // declaration text
}
