package quickjs_test

import (
	"context"
	"testing"

	"github.com/codemode-go/codemode/client"
	"github.com/codemode-go/codemode/drivers/quickjs"
	"github.com/codemode-go/codemode/internal/webtest"
)

// TestWebPlatform runs the Worker-style programs of issue 15 (web platform
// globals, fetch through the host's policy) on QuickJS.
func TestWebPlatform(t *testing.T) {
	rt, err := client.NewRuntime(context.Background(), quickjs.New(quickjs.Options{}))
	if err != nil {
		t.Fatal(err)
	}
	defer rt.Close()
	webtest.Run(t, rt)
}
