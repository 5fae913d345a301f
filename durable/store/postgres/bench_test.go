package postgres_test

import (
	"context"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/codemode-go/codemode/client"
	"github.com/codemode-go/codemode/codetool"
	"github.com/codemode-go/codemode/contract"
	"github.com/codemode-go/codemode/drivers/quickjs"
	"github.com/codemode-go/codemode/durable"
	"github.com/codemode-go/codemode/durable/store"
	"github.com/codemode-go/codemode/durable/store/postgres"
)

type echo struct {
	Repo string `json:"repo"`
}

// benchHandle is a durable handle over one svc.get tool with its journal
// in schema, and a plain client of the same runtime and contract.
func benchHandle(b *testing.B, schema string) (*durable.Handle, *client.Client, func()) {
	b.Helper()
	st, err := postgres.Open(context.Background(), testDSN(b), postgres.Options{Schema: schema})
	if err != nil {
		b.Fatal(err)
	}
	d := quickjs.New(quickjs.Options{Timeout: time.Minute})
	rt, err := client.NewRuntime(context.Background(), d)
	if err != nil {
		b.Fatal(err)
	}
	get := must(contract.NewTool("get", "Returns its input.", func(ctx context.Context, in echo) (echo, error) { return in, nil }))
	ct := must(contract.NewNamespaced(contract.Namespace{Name: "svc", Tools: []*contract.Tool{get}}))
	h, err := durable.New(st, rt, ct, durable.Options{MaxExecutions: 20})
	if err != nil {
		b.Fatal(err)
	}
	return h, client.New(rt, ct), func() { _ = d.Close(); _ = st.Close() }
}

// BenchmarkCallOverhead runs a program of 100 connector calls with the
// journal in PostgreSQL (each call recorded executing, then applied) and
// without it (the same contract through client.RunCode); the difference of
// the two ns/call figures is the journal's overhead per call.
func BenchmarkCallOverhead(b *testing.B) {
	h, plain, done := benchHandle(b, newSchema(b))
	defer done()
	ctx := context.Background()
	const code = `for (let i = 0; i < 100; i++) await svc.get({ repo: "r" + i }); 1`
	b.Run("plain", func(b *testing.B) {
		for b.Loop() {
			out, err := plain.RunCode(ctx, code, client.RunOptions{})
			if err != nil || out.Kind != client.Success {
				b.Fatal(err, out)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*100), "ns/call")
	})
	b.Run("journal", func(b *testing.B) {
		for b.Loop() {
			out, err := h.Execute(ctx, code)
			if err != nil || out.Status != codetool.StatusCompleted {
				b.Fatal(err, out)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*100), "ns/call")
	})
}

// BenchmarkReplicas8 runs 8 replicas (separate handles, pools and QuickJS
// runtimes), each executing programs of 10 journaled connector calls from
// two goroutines at once, and reports their aggregate journaled calls per
// second with the number of CPUs.
func BenchmarkReplicas8(b *testing.B) {
	schema := newSchema(b)
	const replicas, workers, calls = 8, 2, 10
	var handles []*durable.Handle
	for range replicas {
		h, _, done := benchHandle(b, schema)
		defer done()
		handles = append(handles, h)
	}
	ctx := context.Background()
	const code = `for (let i = 0; i < 10; i++) await svc.get({ repo: "r" + i }); 1`
	for _, h := range handles { // compile QuickJS and fill the pools outside the timing
		if out, err := h.Execute(ctx, code); err != nil || out.Status != codetool.StatusCompleted {
			b.Fatal(err, out)
		}
	}
	var next atomic.Int64
	b.ResetTimer()
	start := time.Now()
	var wg sync.WaitGroup
	for i := range replicas * workers {
		h := handles[i%replicas]
		wg.Go(func() {
			for next.Add(1) <= int64(b.N) {
				out, err := h.Execute(ctx, code)
				if err != nil || out.Status != codetool.StatusCompleted {
					b.Error(err, out)
					return
				}
			}
		})
	}
	wg.Wait()
	b.ReportMetric(float64(b.N*calls)/time.Since(start).Seconds(), "calls/s")
	b.ReportMetric(float64(runtime.NumCPU()), "cpus")
}

// BenchmarkJournalCall is the store's part of one journaled connector call
// without the program: InsertEntry (executing, a synchronous commit) then
// TransitionEntry to applied with the result.
func BenchmarkJournalCall(b *testing.B) {
	st := open(b, newSchema(b), postgres.Options{})
	ctx := context.Background()
	if _, err := st.CreateExecution(ctx, "default", &store.Execution{ID: "exec_1", Code: "1", Status: store.StatusRunning, CreatedAt: 1, UpdatedAt: 1}, -1); err != nil {
		b.Fatal(err)
	}
	res := []byte(`{"repo":"r"}`)
	var seq uint64
	for b.Loop() {
		seq++
		e := &store.Entry{Seq: seq, Connector: "svc", Method: "get", Args: res, State: store.EntryExecuting, UpdatedAt: 1}
		if ok, err := st.InsertEntry(ctx, "default", "exec_1", e); err != nil || !ok {
			b.Fatal(ok, err)
		}
		ok, err := st.TransitionEntry(ctx, "default", "exec_1", seq, []store.EntryState{store.EntryExecuting}, store.EntryApplied, store.EntryUpdate{At: 2, Result: res})
		if err != nil || !ok {
			b.Fatal(ok, err)
		}
	}
}
