package remote_test

import (
	"context"
	"crypto/rand"
	"fmt"
	"log"

	"github.com/codemode-go/codemode/client"
	"github.com/codemode-go/codemode/contract"
	"github.com/codemode-go/codemode/drivers/remote"
)

// A client runs programs on a runner host, `codemode runner serve` on
// another machine started with the same pre-shared token (in the
// environment variable CODEMODE_RUNNER_TOKEN), while its tools stay in this
// process. Here the host runs in the test process: exampleHost.
func ExampleNew() {
	secret := make([]byte, 32) // at least 16 bytes; `openssl rand -hex 32`
	rand.Read(secret)
	addr, stop := exampleHost(secret) // "host:port" or "unix:/run/codemode.sock"
	defer stop()

	d, err := remote.New(remote.Options{Address: addr, Token: secret})
	if err != nil {
		log.Fatal(err)
	}
	ctx := context.Background()
	rt, err := client.NewRuntime(ctx, d)
	if err != nil {
		log.Fatal(err)
	}
	defer rt.Close()
	greet, err := contract.NewTool("greet", "Greet someone.", func(ctx context.Context, in struct {
		Name string `json:"name"`
	}) (string, error) {
		return "hello, " + in.Name, nil // runs here, on the client's machine
	})
	if err != nil {
		log.Fatal(err)
	}
	c, err := contract.New(greet)
	if err != nil {
		log.Fatal(err)
	}
	out, err := client.New(rt, c).RunCode(ctx, `await codemode.greet({ name: "runner" })`, client.RunOptions{})
	if err != nil {
		log.Fatal(err)
	}
	text, _ := out.ValueText()
	fmt.Println(out.Kind, text)
	// Output: success hello, runner
}
