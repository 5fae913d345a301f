// Command generate writes durable/internal/sdk/sdk.js from src/sdk.ts
// (go generate ./durable/internal/sdk).
package main

import (
	"log"
	"os"

	"github.com/codemode-go/codemode/durable/internal/sdk"
)

func main() {
	js, err := sdk.Build("src/sdk.ts")
	if err != nil {
		log.Fatal(err)
	}
	if err := os.WriteFile("sdk.js", []byte(js+"\n"), 0o644); err != nil {
		log.Fatal(err)
	}
}
