package quickjs_test

import (
	"os"
	"testing"

	"github.com/codemode-go/codemode/drivers/quickjs"
)

// inProcessEnv, set to 1, runs this package's tests on the in-process mode
// (Options.InProcess) instead of the default sandbox processes:
//
//	CODEMODE_QUICKJS_TEST_INPROCESS=1 go test ./drivers/quickjs/
const inProcessEnv = "CODEMODE_QUICKJS_TEST_INPROCESS"

// newDriver is quickjs.New in the mode the test run asks for.
func newDriver(opts quickjs.Options) *quickjs.Driver {
	if os.Getenv(inProcessEnv) == "1" {
		opts.InProcess = true
	}
	return quickjs.New(opts)
}

// needSandbox skips a test of the sandbox process in an in-process run.
func needSandbox(t *testing.T) {
	t.Helper()
	if os.Getenv(inProcessEnv) == "1" {
		t.Skip("a test of the sandbox process; this run is in process")
	}
}
