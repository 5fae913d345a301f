//go:build race

package openapi

// raceEnabled: the race detector makes the decoder and kin-openapi several
// times slower (a whole load of GitHub's description took about 10 s under
// it on the project's 2-core machine class, 2026-12-02).
const raceEnabled = true
