//go:build !race

package openapi

const raceEnabled = false
