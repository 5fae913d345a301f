package quickjs_test

import (
	"context"
	"testing"

	"github.com/codemode-go/codemode/client"
	"github.com/codemode-go/codemode/drivers/quickjs"
	"github.com/codemode-go/codemode/internal/cases"
)

func TestCases(t *testing.T) {
	all, err := cases.Load("../../testdata/cases")
	if err != nil {
		t.Fatal(err)
	}
	rt, err := client.NewRuntime(context.Background(), newDriver(quickjs.Options{}))
	if err != nil {
		t.Fatal(err)
	}
	defer rt.Close()
	for _, c := range all {
		t.Run(c.Name, func(t *testing.T) { c.Check(t, rt) })
	}
}
