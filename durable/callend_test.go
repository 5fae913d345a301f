package durable_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/codemode-go/codemode/client"
	"github.com/codemode-go/codemode/codetool"
	"github.com/codemode-go/codemode/durable"
	"github.com/codemode-go/codemode/durable/store"
	"github.com/codemode-go/codemode/internal/pgtest"
)

// eachStore runs fn on a fresh journal in each store: a SQLite file, and
// PostgreSQL in a fresh schema when CODEMODE_TEST_POSTGRES names a server
// (skipped otherwise, unless CODEMODE_REQUIRE_POSTGRES=1).
func eachStore(t *testing.T, fn func(t *testing.T, st store.Store)) {
	t.Run("sqlite", func(t *testing.T) { fn(t, openStore(t, filepath.Join(t.TempDir(), "journal.db"))) })
	t.Run("postgres", func(t *testing.T) {
		journal, _ := pgtest.Journal(t)
		st, err := durable.OpenStore(context.Background(), journal)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = st.Close() })
		fn(t, st)
	})
}

// slowService is a connector whose calls end every way a call can: a read,
// a failure, an output that breaks the tool's schema, a write that needs
// approval, and slow, which runs until its execution ends (or, when
// stubborn, until the test releases it), and started, which returns once
// slow runs, so that a program can leave slow behind for certain.
type slowService struct {
	begun    chan struct{} // slow has started
	release  chan struct{} // a stubborn slow may return
	stubborn bool
}

type padInput struct {
	Pad string `json:"pad,omitempty"`
}

func (s *slowService) connector() connector {
	read := must(funcTool("read", "Reads.", func(context.Context, padInput) (countOutput, error) { return countOutput{N: 1}, nil }))
	fail := must(funcTool("fail", "Fails.", func(context.Context, empty) (countOutput, error) {
		return countOutput{}, errors.New("upstream is down")
	}))
	expire := must(funcTool("expire", "Fails with its own timeout.", func(context.Context, empty) (countOutput, error) {
		return countOutput{}, fmt.Errorf("GET /slow took longer than 1s: %w", context.DeadlineExceeded)
	}))
	act := must(funcTool("act", "A write that needs approval.", func(context.Context, empty) (countOutput, error) { return countOutput{N: 2}, nil }))
	act.RequiresApproval = true
	slow := must(funcTool("slow", "Runs until its execution ends.", func(ctx context.Context, _ empty) (countOutput, error) {
		s.begun <- struct{}{}
		if s.stubborn {
			<-s.release
			return countOutput{N: 3}, nil
		}
		<-ctx.Done()
		return countOutput{}, ctx.Err()
	}))
	started := must(funcTool("started", "Returns once slow runs.", func(ctx context.Context, _ empty) (empty, error) {
		select {
		case <-s.begun:
			return empty{}, nil
		case <-ctx.Done():
			return empty{}, ctx.Err()
		}
	}))
	bad := connectorTool{Name: "bad", Description: "Answers what its output schema forbids.",
		InputSchema: json.RawMessage(`{"type":"object"}`), OutputSchema: json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer"}},"required":["n"]}`),
		Execute: func(context.Context, json.RawMessage) (json.RawMessage, error) {
			return json.RawMessage(`{"n":"one"}`), nil
		}}
	return connector{Name: "svc", Tools: []connectorTool{read, fail, expire, act, slow, started, bad}}
}

func newSlowService() *slowService {
	return &slowService{begun: make(chan struct{}, 1), release: make(chan struct{})}
}

// ends lists each entry's seq, call and end: "1:svc.read=completed".
func ends(e *store.Execution) string {
	var s []string
	for _, l := range e.Log {
		s = append(s, fmt.Sprintf("%d:%s.%s=%s", l.Seq, l.Connector, l.Method, l.End))
	}
	return strings.Join(s, " ")
}

// Every connector call a pass ran leaves in its journal entry how it ended,
// as the client's telemetry tells it (client.Event), in words: completed,
// failed (the tool's error, its own timeout included, or an output its
// schema forbids, though the entry keeps the output), cancelled (the program returned without
// awaiting it), timeout (in flight at the deadline), halted (in flight
// when another call stopped the pass). A call that never ran (it awaits
// approval) has no end yet.
func TestEntriesRecordHowCallsEnded(t *testing.T) {
	cases := []struct {
		name, code string
		limits     client.Limits
		want       string // ends()
		// states is states(), "" where a handler still running may
		// record its error any moment (the entry is executing, then error).
		states string
	}{
		{"completed", `return await svc.read({})`, client.Limits{},
			"1:svc.read=completed", "1:svc.read=applied"},
		{"failed", `try { await svc.fail({}) } catch {} return 1`, client.Limits{},
			"1:svc.fail=failed", "1:svc.fail=error"},
		{"failed with its own timeout", `try { await svc.expire({}) } catch {} return 1`, client.Limits{},
			"1:svc.expire=failed", "1:svc.expire=error"},
		{"output against the schema", `try { await svc.bad({}) } catch {} return 1`, client.Limits{},
			"1:svc.bad=failed", "1:svc.bad=applied"},
		{"abandoned", `svc.slow({}); await svc.started({}); return 1`, client.Limits{},
			"1:svc.slow=cancelled 2:svc.started=completed", ""},
		{"in flight at the deadline", `await svc.slow({})`, client.Limits{Timeout: 2 * time.Second}, // long enough to reach the call on a loaded machine
			"1:svc.slow=timeout", ""},
		{"in flight when another call halted the pass", `svc.slow({}); await svc.started({}); await svc.read({ pad: "x".repeat(1100000) })`, client.Limits{},
			"1:svc.slow=halted 2:svc.started=completed", ""},
		{"awaiting approval", `await svc.read({}); return await svc.act({})`, client.Limits{},
			"1:svc.read=completed 2:svc.act=", "1:svc.read=applied 2:svc.act=pending"},
	}
	check := func(t *testing.T, ex client.Executor, st store.Store) {
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				svc := newSlowService()
				h := newHandleOn(t, ex, st, durable.Options{Limits: c.limits}, svc.connector())
				out, err := h.Execute(context.Background(), c.code)
				if err != nil {
					t.Fatal(err)
				}
				e := record(t, h, out.ExecutionID)
				if got := ends(e); got != c.want {
					t.Errorf("ends %s, want %s (answer %+v)", got, c.want, out)
				}
				if got := states(e); c.states != "" && got != c.states {
					t.Errorf("states %s, want %s", got, c.states)
				}
			})
		}
	}
	eachStore(t, func(t *testing.T, st store.Store) { check(t, executor(t), st) })
	// The ends come from the client, which every driver shares: the other
	// drivers on one store.
	t.Run("drivers", func(t *testing.T) {
		onEveryDriver(t, func(t *testing.T, ex client.Executor) {
			check(t, ex, openStore(t, filepath.Join(t.TempDir(), "journal.db")))
		})
	})
}

// A call the program left behind whose handler goes on after the
// execution ended is cancelled in the journal at once, its entry still
// executing (what the action did is not guessed); when the handler
// returns, its result is recorded and the end stays cancelled.
func TestAbandonedCallStillRunningIsCancelled(t *testing.T) {
	eachStore(t, func(t *testing.T, st store.Store) {
		svc := newSlowService()
		svc.stubborn = true
		h := newHandle(t, st, durable.Options{}, svc.connector())
		out := execute(t, h, `svc.slow({}); await svc.started({}); return 1`)
		wantStatus(t, out, codetool.StatusCompleted)
		e := record(t, h, out.ExecutionID)
		if got := ends(e) + " " + states(e); got != "1:svc.slow=cancelled 2:svc.started=completed 1:svc.slow=executing 2:svc.started=applied" {
			t.Fatalf("after the run: %s", got)
		}
		close(svc.release)
		for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(5 * time.Millisecond) {
			e = record(t, h, out.ExecutionID)
			if e.Log[0].State != store.EntryExecuting || time.Now().After(deadline) {
				break
			}
		}
		if got := ends(e) + " " + states(e); got != "1:svc.slow=cancelled 2:svc.started=completed 1:svc.slow=applied 2:svc.started=applied" {
			t.Fatalf("after the handler returned: %s", got)
		}
	})
}

// A call answered from the journal on a replay keeps the end recorded when
// it ran (here set by hand to one the replay's telemetry would not give);
// the approved action that runs in the replay gets its own.
func TestReplayKeepsRecordedEnds(t *testing.T) {
	eachStore(t, func(t *testing.T, st store.Store) {
		h := newHandle(t, st, durable.Options{}, newSlowService().connector())
		ctx := context.Background()
		out := execute(t, h, `const r = await svc.read({}); try { await svc.fail({}) } catch {} await svc.act({}); return r`)
		wantStatus(t, out, codetool.StatusPaused)
		if ok, err := st.TransitionEntry(ctx, "default", out.ExecutionID, 1, []store.EntryState{store.EntryApplied}, store.EntryApplied, store.EntryUpdate{End: "timeout"}); err != nil || !ok {
			t.Fatalf("setting the recorded end: %v, %v", ok, err)
		}
		wantStatus(t, approve(t, h, out.ExecutionID), codetool.StatusCompleted)
		if got := ends(record(t, h, out.ExecutionID)); got != "1:svc.read=timeout 2:svc.fail=failed 3:svc.act=completed" {
			t.Fatalf("ends after the replay: %s", got)
		}
	})
}
