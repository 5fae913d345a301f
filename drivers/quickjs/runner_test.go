package quickjs_test

import (
	"testing"

	"github.com/codemode-go/codemode/drivers/quickjs"
	"github.com/codemode-go/codemode/internal/runnertest"
)

func TestRunner(t *testing.T) {
	d := quickjs.New(quickjs.Options{MaxOutput: 1 << 14})
	t.Cleanup(func() { _ = d.Close() })
	runnertest.Run(t, d, runnertest.Options{MaxOutput: 1 << 14})
}
