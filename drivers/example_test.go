package drivers_test

import (
	"context"
	"fmt"
	"log"
	"strings"

	"github.com/codemode-go/codemode/client"
	"github.com/codemode-go/codemode/drivers"
	"github.com/codemode-go/codemode/drivers/quickjs"
)

// A driver is what client.NewRuntime boots: QuickJS (the default), Node.js
// or a remote runner host all satisfy the one interface.
func ExampleDriver() {
	var d drivers.Driver = quickjs.New(quickjs.Options{})
	rt, err := client.NewRuntime(context.Background(), d)
	if err != nil {
		log.Fatal(err)
	}
	defer rt.Close()
	fmt.Println(strings.HasPrefix(rt.Description(), "QuickJS"))
	// Output: true
}
