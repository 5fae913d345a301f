package runner

import (
	"errors"
	"os"
	"testing"

	"github.com/codemode-go/codemode/runner/internal/bundle"
)

func TestSourceIsFresh(t *testing.T) {
	want, err := bundle.Build("src")
	if errors.Is(err, bundle.ErrNoModules) && os.Getenv("CODEMODE_REQUIRE_NODE") == "" {
		t.Skip(err)
	}
	if err != nil {
		t.Fatal(err)
	}
	if Source != want {
		t.Fatal("runner.js is stale: run `go generate ./runner` and commit the result")
	}
}
