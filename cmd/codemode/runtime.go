package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/codemode-go/codemode/client"
	"github.com/codemode-go/codemode/drivers"
	"github.com/codemode-go/codemode/drivers/node"
	"github.com/codemode-go/codemode/drivers/quickjs"
	"github.com/codemode-go/codemode/drivers/remote"
)

// runnerTokenEnv names the environment variable holding the token for a
// remote runner host (--runtime ADDR), as for `codemode runner serve`.
const runnerTokenEnv = "CODEMODE_RUNNER_TOKEN"

// runtimeFlags choose where programs run: --runtime and --pool.
type runtimeFlags struct {
	runtime  string
	pool     int
	cacheDir string
	// memoryMiB, when positive, is the QuickJS heap limit per execution
	// (quickjs.Options.MemoryLimit); 0 keeps the driver's default. Only
	// commands that register it (openapi serve) set it.
	memoryMiB int
	// oneShot is set by commands that run their programs and exit (run,
	// check, approve): the QuickJS driver then boots no spare process
	// (quickjs.Options.NoSpare), which such a command would only kill.
	oneShot bool
}

func (r *runtimeFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&r.runtime, "runtime", "quickjs", "where programs run: quickjs (embedded sandbox), node (a Node.js 24 child process; not a sandbox), or ADDR of runner hosts (host:port or unix:/path; several comma-separated, or a name that resolves to several, which --pool spreads over; token in $"+runnerTokenEnv+")")
	fs.IntVar(&r.pool, "pool", 1, "spread executions over N runtimes")
	fs.StringVar(&r.cacheDir, "cache-dir", defaultCacheDir(), "folder for compiled QuickJS machine code (empty: no disk cache)")
}

// check validates the flags.
func (r *runtimeFlags) check(command string) error {
	if r.pool < 1 {
		return usageError{command + ": --pool must be at least 1"}
	}
	if r.runtime == "" {
		return usageError{command + ": --runtime is empty"}
	}
	return nil
}

// driver makes the driver the flags name. close releases it after every
// runtime made with it is closed.
func (r *runtimeFlags) driver(timeout time.Duration) (d drivers.Driver, close func(), err error) {
	switch r.runtime {
	case "quickjs":
		q := quickjs.New(quickjs.Options{Timeout: timeout, CacheDir: r.cacheDir, MemoryLimit: uint64(r.memoryMiB) << 20, NoSpare: r.oneShot})
		return q, func() { q.Close() }, nil
	case "node":
		return node.New(node.Options{}), func() {}, nil
	}
	if !strings.Contains(r.runtime, ":") {
		return nil, nil, usageError{fmt.Sprintf("--runtime %q is not quickjs, node or a runner host address (host:port or unix:/path)", r.runtime)}
	}
	token := os.Getenv(runnerTokenEnv)
	if token == "" {
		return nil, nil, usageError{fmt.Sprintf("--runtime %s is a runner host; put its token in $%s", r.runtime, runnerTokenEnv)}
	}
	rd, err := remote.New(remote.Options{Address: r.runtime, Token: []byte(token)})
	if err != nil {
		return nil, nil, usageError{"--runtime: " + err.Error()}
	}
	return rd, func() {}, nil
}

// executor is a booted runtime or pool.
type executor interface {
	client.Executor
	Close() error
}

// open boots the runtime (or pool) the flags name; ctx governs boot. The
// returned close stops it and releases the driver.
func (r *runtimeFlags) open(ctx context.Context, timeout time.Duration) (executor, func(), error) {
	d, release, err := r.driver(timeout)
	if err != nil {
		return nil, nil, err
	}
	var ex executor
	if r.pool > 1 {
		ex, err = client.NewPool(ctx, d, client.PoolOptions{Size: r.pool})
	} else {
		ex, err = client.NewRuntime(ctx, d)
	}
	if err != nil {
		release()
		if fault := nodeVersionFault(err); fault != nil {
			return nil, nil, fault
		}
		return nil, nil, fmt.Errorf("starting the %s runtime: %w", r.runtime, err)
	}
	return ex, func() { ex.Close(); release() }, nil
}

// nodeVersionFault rewords the node driver's *node.VersionError for the
// command line, which has no node.Options.NodePath to set: node is found
// on PATH. Any other err is nil.
func nodeVersionFault(err error) error {
	var ve *node.VersionError
	if !errors.As(err, &ve) {
		return nil
	}
	return fmt.Errorf("--runtime node: %s is Node.js %s; version %d or newer is required (%s)", ve.NodePath, ve.Version, ve.Required(), ve.Install())
}
