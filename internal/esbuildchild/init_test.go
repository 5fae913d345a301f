package esbuildchild

import (
	"fmt"
	"os"
)

// printedBeforeTheHook is set when a child of this test binary starts: a
// package-level initializer runs before every init function, as another
// package's init runs before the hook in a program, and it prints to
// standard output (TestInitOutputDoesNotReachTheChannel).
var printedBeforeTheHook = func() bool {
	if os.Getenv(tokenEnv) == "" {
		return false
	}
	fmt.Println("init output")
	return true
}()
