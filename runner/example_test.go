package runner_test

import (
	"fmt"
	"strings"

	"github.com/codemode-go/codemode/runner"
)

// Source is one script; a driver evaluates it in its engine, which then has
// the global CodeModeRunner.
func Example() {
	fmt.Println(strings.Contains(runner.Source, "CodeModeRunner"), len(runner.Source) > 10_000)
	// Output: true true
}
