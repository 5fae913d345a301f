package main

import (
	"errors"
	"log"
	"os"
	"os/exec"

	"github.com/codemode-go/codemode/runner/internal/bundle"
)

func main() {
	src, err := bundle.Build("src")
	if errors.Is(err, bundle.ErrNoModules) {
		// The build dependencies (package.json, pinned by package-lock.json).
		cmd := exec.Command("npm", "ci", "--no-audit", "--no-fund", "--silent")
		cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
		if err := cmd.Run(); err != nil {
			log.Fatalf("installing the runner's build dependencies (npm ci in runner/): %v", err)
		}
		src, err = bundle.Build("src")
	}
	if err != nil {
		log.Fatal(err)
	}
	if err := os.WriteFile("runner.js", []byte(src), 0o644); err != nil {
		log.Fatal(err)
	}
}
