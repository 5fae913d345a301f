package remote_test

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"log"

	"github.com/codemode-go/codemode/client"
	"github.com/codemode-go/codemode/contract"
	"github.com/codemode-go/codemode/drivers/quickjs"
	"github.com/codemode-go/codemode/drivers/remote"
)

// A runner host serves QuickJS runtimes on a socket (`codemode runner
// serve` does this); a client connects with the same pre-shared token and
// runs programs there while its tools stay in this process.
func ExampleNewServer() {
	secret := make([]byte, remote.MinTokenSize)
	rand.Read(secret)

	// The host side. A CacheDir keeps QuickJS compiled on disk, so the
	// host boots each connection's runtime quickly (cacheDir is this
	// package's test cache).
	local := quickjs.New(quickjs.Options{CacheDir: cacheDir})
	defer local.Close()
	srv, err := remote.NewServer(remote.ServerOptions{Driver: local, Token: secret})
	if err != nil {
		log.Fatal(err)
	}
	l, err := remote.Listen("127.0.0.1:0") // or "unix:/run/codemode.sock"
	if err != nil {
		log.Fatal(err)
	}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(l) }()
	defer func() {
		srv.Close()
		if err := <-served; !errors.Is(err, remote.ErrServerClosed) {
			log.Print(err)
		}
	}()

	// The client side: a driver like any other.
	d, err := remote.New(remote.Options{Address: l.Addr().String(), Token: secret})
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
