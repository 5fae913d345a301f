package node_test

import (
	"context"
	"testing"

	"github.com/codemode-go/codemode/client"
	"github.com/codemode-go/codemode/internal/webtest"
)

// TestWebPlatform runs the Worker-style programs of issue 15 (web platform
// globals, fetch through the host's policy) on Node.js.
func TestWebPlatform(t *testing.T) {
	rt, err := client.NewRuntime(context.Background(), driver(t))
	if err != nil {
		t.Fatal(err)
	}
	defer rt.Close()
	webtest.Run(t, rt)
}
