// Command generate writes runner/runner.js from runner/src (go generate ./runner).
package main
