package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/codemode-go/codemode/client"
	"github.com/codemode-go/codemode/codetool"
	"github.com/codemode-go/codemode/contract"
	"github.com/codemode-go/codemode/durable"
	"github.com/codemode-go/codemode/durable/store"
	"github.com/codemode-go/codemode/durable/store/sqlite"
)

// The durable rows measure what durable/bench_test.go's benchmarks
// measure (BenchmarkCallOverhead, BenchmarkReplay1000 and
// BenchmarkNoCallProgram), with the same connector and programs, on each
// of our drivers: a plain client.RunCode of code against durable.Handle's
// Execute of the same code, journalled in SQLite, each with a fresh source.

// Code as models write it (client.Client.RunCode), with __SEQ__ and __N__
// filled in per execution.
const (
	durableCalls  = "// __SEQ__\nfor (let i = 0; i < __N__; i++) await svc.get({ repo: \"r\" + i }); 1"
	durablePaused = "// __SEQ__\nfor (let i = 0; i < __N__; i++) await svc.get({ repo: \"r\" + i }); await svc.put({ repo: \"x\" }); 1"
	durableNoCall = "// __SEQ__\n1"
)

// durableRig is a SQLite journal in a temporary folder and two handles on
// it over a contender's runtime: one that keeps every execution, as
// BenchmarkCallOverhead's does, and one for replays that keeps 5.
type durableRig struct {
	dir        string
	store      store.Store
	h, replays *durable.Handle
	plain      *client.Client // the handle's contract, without the journal
}

// repo is the svc tools' input and output.
type repo struct {
	Repo string `json:"repo"`
}

func newDurableRig(ex client.Executor) (*durableRig, error) {
	get, err := contract.NewTool("get", "Returns its input.", func(ctx context.Context, in repo) (repo, error) { return in, nil })
	if err != nil {
		return nil, err
	}
	put, err := contract.NewTool("put", "Needs approval.", func(ctx context.Context, in repo) (repo, error) { return in, nil })
	if err != nil {
		return nil, err
	}
	if put, err = put.WithPolicy(contract.Policy{RequiresApproval: true}); err != nil {
		return nil, err
	}
	k, err := contract.NewNamespaced(contract.Namespace{Name: "svc", Tools: []*contract.Tool{get, put}})
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "sidebyside-durable")
	if err != nil {
		return nil, err
	}
	rig := &durableRig{dir: dir}
	if rig.store, err = sqlite.Open(context.Background(), filepath.Join(dir, "journal.db"), sqlite.Options{}); err != nil {
		rig.close()
		return nil, fmt.Errorf("opening the journal: %w", err)
	}
	if rig.h, err = durable.New(rig.store, ex, k, durable.Options{}); err != nil {
		rig.close()
		return nil, err
	}
	if rig.replays, err = durable.New(rig.store, ex, k, durable.Options{Name: "replays", MaxExecutions: 5}); err != nil {
		rig.close()
		return nil, err
	}
	rig.plain = client.New(ex, rig.h.Contract())
	return rig, nil
}

func (d *durableRig) close() {
	if d.store != nil {
		_ = d.store.Close()
	}
	_ = os.RemoveAll(d.dir)
}

// measureDurable measures one of the durable rows on the contender's
// runtime, making the journal on first use.
func (o *ours) measureDurable(r row, seq int) (float64, error) {
	if o.durable == nil {
		rig, err := newDurableRig(o.rt)
		if err != nil {
			return 0, fmt.Errorf("%s: %w", o.label, err)
		}
		o.durable = rig
	}
	switch r.key {
	case "journal":
		// One program of r.n calls, plainly and journalled: the
		// difference per call, in microseconds.
		d, err := o.durable.overhead(fill(durableCalls, seq, r.n), fill(durableCalls, seq+1, r.n))
		return float64(d.Nanoseconds()) / 1000 / float64(r.n), err
	case "nocall":
		// r.n programs without a call, plainly and journalled,
		// alternately: the median of the differences, in milliseconds
		// (as BenchmarkNoCallProgram; a mean would carry the pauses of a
		// loaded machine).
		ds := make([]float64, r.n)
		for i := range r.n {
			d, err := o.durable.overhead(fill(durableNoCall, seq+2*i, 0), fill(durableNoCall, seq+2*i+1, 0))
			if err != nil {
				return 0, err
			}
			ds[i] = float64(d.Microseconds()) / 1000
		}
		return median(ds), nil
	case "replay1000":
		d, err := o.durable.replay(fill(durablePaused, seq, r.n))
		return float64(d.Microseconds()) / 1000, err
	}
	return 0, fmt.Errorf("unknown durable row %s", r.key)
}

// overhead runs plain with the plain client, then journalled with
// Execute, and returns how much longer the second took.
func (d *durableRig) overhead(plain, journalled string) (time.Duration, error) {
	ctx := context.Background()
	start := time.Now()
	out, err := d.plain.RunCode(ctx, plain, client.RunOptions{})
	if err != nil {
		return 0, err
	}
	if out.Kind != client.Success {
		return 0, fmt.Errorf("plain run: %s", out.Error)
	}
	mid := time.Now()
	answer, err := d.h.Execute(ctx, journalled)
	if err != nil {
		return 0, err
	}
	if answer.Status != codetool.StatusCompleted {
		return 0, fmt.Errorf("durable run: %s %s", answer.Status, answer.Error)
	}
	return time.Since(mid) - mid.Sub(start), nil
}

// replay executes code, which pauses for the approval of its last call,
// and returns how long the approval's pass took: it replays every earlier
// call from the journal and runs the approved one.
func (d *durableRig) replay(code string) (time.Duration, error) {
	ctx := context.Background()
	paused, err := d.replays.Execute(ctx, code)
	if err != nil {
		return 0, err
	}
	if paused.Status != codetool.StatusPaused {
		return 0, fmt.Errorf("durable run: %s, not paused: %s", paused.Status, paused.Error)
	}
	start := time.Now()
	done, err := d.replays.Approve(ctx, paused.ExecutionID)
	took := time.Since(start)
	if err != nil {
		return 0, err
	}
	if done.Status != codetool.StatusCompleted {
		return 0, fmt.Errorf("approval's pass: %s %s", done.Status, done.Error)
	}
	return took, nil
}
