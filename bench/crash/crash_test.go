package main

import (
	"os"
	"testing"
	"time"
)

// A few kill trials per backend, as CI runs them (go run ./bench/crash
// -trials 200 is the full measure): no write runs twice, none is lost, no
// live run is touched, and every run completes through the documented
// recovery commands.
func TestCrashTrials(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the kill trials build codemode and take seconds each")
	}
	backends := []config{{backend: "sqlite"}}
	if dsn := os.Getenv("CODEMODE_TEST_POSTGRES"); dsn != "" {
		backends = append(backends, config{backend: "postgres", dsn: dsn})
	} else if os.Getenv("CODEMODE_REQUIRE_POSTGRES") == "1" {
		t.Fatal("CODEMODE_TEST_POSTGRES is unset and CODEMODE_REQUIRE_POSTGRES=1")
	}
	for _, c := range backends {
		t.Run(c.backend, func(t *testing.T) {
			c.trials, c.seed, c.log = 4, uint64(time.Now().UnixNano()), testWriter{t}
			tl, err := runTrials(c)
			if err != nil {
				t.Fatal(err)
			}
			t.Log(tl)
			if !tl.ok() || tl.completed != tl.trials || tl.kills == 0 {
				t.Fatalf("%s", tl)
			}
		})
	}
}

// testWriter writes a trial's lines to the test's log.
type testWriter struct{ t *testing.T }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Log(string(p))
	return len(p), nil
}
