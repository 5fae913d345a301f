package sdk

import (
	"strings"
	"testing"
)

func TestSetupIsFresh(t *testing.T) {
	want, err := Build("src/sdk.ts")
	if err != nil {
		t.Fatal(err)
	}
	if strings.TrimSpace(Setup) != want {
		t.Fatal("sdk.js is stale: run `go generate ./durable/internal/sdk` and commit the result")
	}
}
