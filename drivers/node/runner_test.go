package node_test

import (
	"testing"

	"github.com/codemode-go/codemode/drivers/node"
	"github.com/codemode-go/codemode/internal/runnertest"
)

func TestRunner(t *testing.T) {
	driver(t) // skips without Node.js 24
	d := node.New(node.Options{MaxOutput: 1 << 14})
	runnertest.Run(t, d, runnertest.Options{MaxOutput: 1 << 14})
}
