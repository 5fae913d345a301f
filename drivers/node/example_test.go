package node_test

import (
	"context"
	"fmt"
	"log"

	"github.com/codemode-go/codemode/client"
	"github.com/codemode-go/codemode/contract"
	"github.com/codemode-go/codemode/drivers/node"
)

// A Node.js runtime is one long-lived Node.js 24 process that runs many
// programs, with Node.js's own modules: for trusted programs, not a
// sandbox. (This example is compiled but not run, so that the tests pass on
// a machine without Node.js 24; TestConformance runs the same path.)
func ExampleNew() {
	ctx := context.Background()
	rt, err := client.NewRuntime(ctx, node.New(node.Options{}))
	if err != nil {
		log.Fatal(err) // for example, node is not on PATH or is not Node.js 24
	}
	defer rt.Close()
	c, err := contract.New()
	if err != nil {
		log.Fatal(err)
	}
	out, err := client.New(rt, c).Run(ctx, `import { createHash } from "node:crypto";
export default async function ({ result }: AgentProgramScope) {
  result.appendText(createHash("sha256").update("code mode").digest("hex").slice(0, 12));
}`, client.RunOptions{})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(out.Kind, out.Content[0].Text) // success 7a448fe67ae5
}
