//go:build race

package postgres_test

// raceEnabled scales the replica tests' iterations down under the race
// detector (several times the CPU); scripts/test also runs them without it
// at full count.
const raceEnabled = true
