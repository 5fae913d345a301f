// Package bundle builds the runner bundle from runner/src with esbuild. It is
// shared by the go:generate command and by the freshness test.
package bundle
