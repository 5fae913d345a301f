//go:build !unix

package quickjs

import (
	"context"
	"errors"
)

// sandboxSupported: outside Unix the engines run in the host process.
const sandboxSupported = false

func sandboxCacheDir(dir string) string { return dir }

func (d *Driver) connectSandboxed(ctx context.Context, runnerSource string) (*connection, error) {
	return nil, errors.New("quickjs: sandbox processes need Unix")
}

// spare: no sandbox processes, so no spare.
type spare struct{}

func (d *Driver) closeSpare() {}
