package main

import (
	"log"
	"os"

	"github.com/codemode-go/codemode/runner/internal/bundle"
)

func main() {
	src, err := bundle.Build("src")
	if err != nil {
		log.Fatal(err)
	}
	if err := os.WriteFile("runner.js", []byte(src), 0o644); err != nil {
		log.Fatal(err)
	}
}
