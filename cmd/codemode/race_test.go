//go:build race

package main

// raceEnabled reports whether the tests run with the race detector, which
// makes this test binary take over a second to start as a tool command.
const raceEnabled = true
