package store_test

import (
	"fmt"

	"github.com/codemode-go/codemode/durable/store"
)

// An execution's status says whether its program may still run: running
// and paused ones may, the terminal ones never again.
func ExampleStatus_Terminal() {
	for _, s := range []store.Status{store.StatusRunning, store.StatusPaused, store.StatusCompleted, store.StatusError, store.StatusRejected, store.StatusRolledBack} {
		fmt.Println(s, s.Terminal())
	}
	// Output:
	// running false
	// paused false
	// completed true
	// error true
	// rejected true
	// rolled_back true
}
