package sqlite_test

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/codemode-go/codemode/durable/store"
	"github.com/codemode-go/codemode/durable/store/sqlite"
)

// BenchmarkCallRecord is what the journal writes for one connector call
// that needs no approval: the entry inserted as executing, then moved to
// applied with its result (two commits: the crash evidence rule).
func BenchmarkCallRecord(b *testing.B) {
	s, err := sqlite.Open(context.Background(), filepath.Join(b.TempDir(), "j.db"), sqlite.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	if _, err := s.CreateExecution(ctx, "default", &store.Execution{ID: "exec_1", Code: "1", Status: store.StatusRunning, CreatedAt: 1, UpdatedAt: 1}, -1); err != nil {
		b.Fatal(err)
	}
	args := json.RawMessage(`{"repo":"r1"}`)
	seq := uint64(0)
	c0 := cpuTime()
	defer func() { b.ReportMetric(float64((cpuTime()-c0).Nanoseconds())/float64(b.N)/1000, "cpu-us/op") }()
	for b.Loop() {
		seq++
		ok, err := s.InsertEntry(ctx, "default", "exec_1", &store.Entry{Seq: seq, Connector: "svc", Method: "get", Args: args, State: store.EntryExecuting, UpdatedAt: 2})
		if err != nil || !ok {
			b.Fatal(ok, err)
		}
		ok, err = s.TransitionEntry(ctx, "default", "exec_1", seq, []store.EntryState{store.EntryExecuting}, store.EntryApplied, store.EntryUpdate{At: 3, Result: args})
		if err != nil || !ok {
			b.Fatal(ok, err)
		}
	}
}

// BenchmarkCallRecordBatched is what the journal writes per connector call
// in a sequence of calls: the call's executing mark and the previous
// call's result in one commit (store.EntryBatcher).
func BenchmarkCallRecordBatched(b *testing.B) {
	s, err := sqlite.Open(context.Background(), filepath.Join(b.TempDir(), "j.db"), sqlite.Options{})
	if err != nil {
		b.Fatal(err)
	}
	batcher := s.(store.EntryBatcher)
	defer s.Close()
	ctx := context.Background()
	if _, err := s.CreateExecution(ctx, "default", &store.Execution{ID: "exec_1", Code: "1", Status: store.StatusRunning, CreatedAt: 1, UpdatedAt: 1}, -1); err != nil {
		b.Fatal(err)
	}
	args := json.RawMessage(`{"repo":"r1"}`)
	seq := uint64(0)
	c0 := cpuTime()
	defer func() { b.ReportMetric(float64((cpuTime()-c0).Nanoseconds())/float64(b.N)/1000, "cpu-us/op") }()
	for b.Loop() {
		seq++
		var moves []store.EntryMove
		if seq > 1 {
			moves = []store.EntryMove{{Seq: seq - 1, From: []store.EntryState{store.EntryExecuting}, To: store.EntryApplied, Update: store.EntryUpdate{At: 3, Result: args}}}
		}
		ok, err := batcher.WriteEntries(ctx, "default", "exec_1", moves, &store.Entry{Seq: seq, Connector: "svc", Method: "get", Args: args, State: store.EntryExecuting, UpdatedAt: 2})
		if err != nil || !ok {
			b.Fatal(ok, err)
		}
	}
}

// BenchmarkEntryRead is one replayed call's read.
func BenchmarkEntryRead(b *testing.B) {
	s, err := sqlite.Open(context.Background(), filepath.Join(b.TempDir(), "j.db"), sqlite.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	if _, err := s.CreateExecution(ctx, "default", &store.Execution{ID: "exec_1", Code: "1", Status: store.StatusRunning, CreatedAt: 1, UpdatedAt: 1}, -1); err != nil {
		b.Fatal(err)
	}
	args := json.RawMessage(`{"repo":"r1"}`)
	for seq := uint64(1); seq <= 100; seq++ {
		if _, err := s.InsertEntry(ctx, "default", "exec_1", &store.Entry{Seq: seq, Connector: "svc", Method: "get", Args: args, Result: args, State: store.EntryApplied, UpdatedAt: 2}); err != nil {
			b.Fatal(err)
		}
	}
	seq := uint64(0)
	c0 := cpuTime()
	defer func() { b.ReportMetric(float64((cpuTime()-c0).Nanoseconds())/float64(b.N)/1000, "cpu-us/op") }()
	for b.Loop() {
		seq = seq%100 + 1
		if _, ok, err := s.Entry(ctx, "default", "exec_1", seq); err != nil || !ok {
			b.Fatal(ok, err)
		}
	}
}

// cpuTime is this process's CPU time (user and system): under a shared,
// loaded machine it varies less than wall time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkExecutionLifecycle is what the journal writes for a program
// without calls: the execution created (and the terminal ones beyond keep
// pruned, one each time in the steady state), then completed. sub-benchmarks
// keep=50 (durable.DefaultMaxExecutions) and keep=-1 (no pruning) show what
// the prune costs.
func BenchmarkExecutionLifecycle(b *testing.B) {
	for _, keep := range []int{50, -1} {
		name := "keep=50"
		if keep < 0 {
			name = "keep=none"
		}
		b.Run(name, func(b *testing.B) {
			s, err := sqlite.Open(context.Background(), filepath.Join(b.TempDir(), "j.db"), sqlite.Options{})
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			ctx := context.Background()
			result := json.RawMessage(`1`)
			i := 0
			c0 := cpuTime()
			defer func() { b.ReportMetric(float64((cpuTime()-c0).Nanoseconds())/float64(b.N)/1000, "cpu-us/op") }()
			for b.Loop() {
				i++
				id := fmt.Sprintf("exec_%d", i)
				at := int64(i)
				if _, err := s.CreateExecution(ctx, "default", &store.Execution{ID: id, Code: "1", Status: store.StatusRunning, CreatedAt: at, UpdatedAt: at}, keep); err != nil {
					b.Fatal(err)
				}
				ok, err := s.TransitionExecution(ctx, "default", id, []store.Status{store.StatusRunning}, store.StatusCompleted, store.ExecutionUpdate{At: at, Value: result, Logs: []string{}})
				if err != nil || !ok {
					b.Fatal(ok, err)
				}
			}
		})
	}
}
