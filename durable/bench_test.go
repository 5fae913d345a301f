package durable_test

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/codemode-go/codemode/client"
	"github.com/codemode-go/codemode/durable"
)

func benchConnector() durable.Connector {
	get := must(durable.FuncTool("get", "Returns its input.", func(ctx context.Context, in repoInput) (repoInput, error) { return in, nil }))
	put := must(durable.FuncTool("put", "Needs approval.", func(ctx context.Context, in repoInput) (repoInput, error) { return in, nil }))
	put.RequiresApproval = true
	return durable.Connector{Name: "svc", Tools: []durable.ConnectorTool{get, put}}
}

const hundredCalls = `for (let i = 0; i < 100; i++) await svc.get({ repo: "r" + i }); 1`

// BenchmarkCallOverhead compares a program of 100 connector calls run with
// the journal (Execute: each call recorded executing then applied in
// SQLite) and without it (the same contract through client.RunCode); the
// difference per call is the journal's overhead (reported as ns/call).
func BenchmarkCallOverhead(b *testing.B) {
	st := openStore(b, filepath.Join(b.TempDir(), "j.db"))
	h := newHandle(b, st, durable.Options{}, benchConnector())
	ctx := context.Background()
	b.Run("plain", func(b *testing.B) {
		for b.Loop() {
			out, err := h.Client().RunCode(ctx, hundredCalls, client.RunOptions{})
			if err != nil || out.Kind != client.Success {
				b.Fatal(err, out)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*100), "ns/call")
	})
	b.Run("journal", func(b *testing.B) {
		for b.Loop() {
			out, err := h.Execute(ctx, hundredCalls)
			if err != nil || out.Status != durable.OutputCompleted {
				b.Fatal(err, out)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*100), "ns/call")
	})
}

// BenchmarkReplay1000 approves an execution whose first pass made 1,000
// calls and paused: the approval's pass replays the 1,000 from the journal
// and runs the approved write.
func BenchmarkReplay1000(b *testing.B) {
	st := openStore(b, filepath.Join(b.TempDir(), "j.db"))
	h := newHandle(b, st, durable.Options{MaxExecutions: 5}, benchConnector())
	ctx := context.Background()
	code := `for (let i = 0; i < 1000; i++) await svc.get({ repo: "r" + i }); await svc.put({ repo: "x" }); 1`
	for b.Loop() {
		b.StopTimer()
		out, err := h.Execute(ctx, code)
		if err != nil || out.Status != durable.OutputPaused {
			b.Fatal(err, out)
		}
		b.StartTimer()
		done, err := h.Approve(ctx, out.ExecutionID)
		if err != nil || done.Status != durable.OutputCompleted {
			b.Fatal(err, done)
		}
	}
}

// BenchmarkNoCallProgram compares Execute of a program without connector
// calls with a plain RunCode of the same code.
func BenchmarkNoCallProgram(b *testing.B) {
	st := openStore(b, filepath.Join(b.TempDir(), "j.db"))
	h := newHandle(b, st, durable.Options{}, benchConnector())
	ctx := context.Background()
	for _, mode := range []string{"plain", "durable"} {
		b.Run(mode, func(b *testing.B) {
			for i := 0; b.Loop(); i++ {
				code := fmt.Sprint(i % 7)
				if mode == "plain" {
					if _, err := h.Client().RunCode(ctx, code, client.RunOptions{}); err != nil {
						b.Fatal(err)
					}
					continue
				}
				if out, err := h.Execute(ctx, code); err != nil || out.Status != durable.OutputCompleted {
					b.Fatal(err, out)
				}
			}
		})
	}
}
