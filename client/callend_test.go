package client_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/codemode-go/codemode/client"
	"github.com/codemode-go/codemode/contract"
	"github.com/codemode-go/codemode/drivers/node"
	"github.com/codemode-go/codemode/drivers/quickjs"
	"github.com/codemode-go/codemode/internal/nodetest"
)

// TestEveryCallGetsOneFinalWord: each admitted tool call has exactly one
// terminal event before the execution's own, whose kind and error (see
// client.Event) say how it ended: completed, failed, halted (the error
// Halt made), and, for calls still in flight at the end, abandoned
// (context.Canceled: the program never awaited them, or another call
// halted the execution) or timeout (context.DeadlineExceeded: the deadline
// passed). A handler that panics failed its call. On QuickJS and Node.js.
func TestEveryCallGetsOneFinalWord(t *testing.T) {
	type io struct {
		MS int `json:"ms"`
	}
	wait, err := contract.NewTool("wait", "Waits ms milliseconds.", func(ctx context.Context, in io) (io, error) {
		select {
		case <-time.After(time.Duration(in.MS) * time.Millisecond):
		case <-ctx.Done():
		}
		return in, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	fail, err := contract.NewTool("fail", "Fails.", func(ctx context.Context, in io) (io, error) { return io{}, errors.New("no") })
	if err != nil {
		t.Fatal(err)
	}
	explode, err := contract.NewTool("explode", "Panics.", func(ctx context.Context, in io) (io, error) {
		var p *io
		return *p, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	c, err := contract.New(wait, fail, explode)
	if err != nil {
		t.Fatal(err)
	}
	stop := errors.New("stop")
	halt := func(next client.ToolCaller) client.ToolCaller {
		return func(ctx context.Context, call client.ToolCall) (json.RawMessage, error) {
			if call.Tool == "wait" && strings.Contains(string(call.Input), "13") {
				return nil, client.Halt(stop)
			}
			return next(ctx, call)
		}
	}
	tests := []struct {
		name, code string
		limits     client.Limits
		want       string // the tool calls' terminal events by seq, in order
	}{
		{"completed and failed", `await codemode.wait({ ms: 1 }); try { await codemode.fail({ ms: 0 }); } catch {} 1`, client.Limits{}, "1:completed 2:failed"},
		{"abandoned", `codemode.wait({ ms: 5000 }); await codemode.wait({ ms: 1 }); 1`, client.Limits{}, "2:completed 1:cancelled"},
		{"halted", `codemode.wait({ ms: 5000 }); await codemode.wait({ ms: 13 }); 1`, client.Limits{}, "2:halted 1:cancelled"},
		{"panicked", `try { await codemode.explode({ ms: 0 }); } catch {} 1`, client.Limits{}, "1:failed"},
		{"timeout", `await codemode.wait({ ms: 60000 })`, client.Limits{Timeout: 300 * time.Millisecond}, "1:timeout"},
	}
	for _, driver := range []string{"quickjs", "node"} {
		t.Run(driver, func(t *testing.T) {
			rt := callEndRuntime(t, driver)
			cl := client.New(rt, c)
			for _, tt := range tests {
				t.Run(tt.name, func(t *testing.T) {
					var mu sync.Mutex
					var ends []string
					last := ""
					_, err := cl.RunCode(context.Background(), tt.code, client.RunOptions{Limits: tt.limits, Middleware: halt, OnTelemetry: func(e client.Event) {
						mu.Lock()
						defer mu.Unlock()
						switch e.Kind {
						case client.EventToolCallCompleted, client.EventToolCallFailed:
							ends = append(ends, fmt.Sprintf("%d:%s", e.Seq, endOf(e, stop)))
						}
						last = string(e.Kind)
					}})
					if err != nil {
						t.Fatal(err)
					}
					mu.Lock()
					defer mu.Unlock()
					if strings.Join(ends, " ") != tt.want || last != string(client.EventExecutionCompleted) {
						t.Fatalf("terminal events %q then %s, want %q then the execution's", ends, last, tt.want)
					}
				})
			}
		})
	}
}

// endOf says how the call of a terminal event ended, as client.Event
// documents it; halt is the error the test's middleware halts with.
func endOf(e client.Event, halt error) string {
	switch {
	case e.Kind == client.EventToolCallCompleted:
		return "completed"
	case errors.Is(e.Err, client.ErrRuntimeFailed), errors.Is(e.Err, client.ErrRuntimeClosed):
		return "runtime_unavailable"
	case errors.Is(e.Err, context.Canceled):
		return "cancelled"
	case errors.Is(e.Err, context.DeadlineExceeded):
		return "timeout"
	case errors.Is(e.Err, halt):
		return "halted"
	}
	return "failed"
}

func callEndRuntime(t *testing.T, driver string) *client.Runtime {
	t.Helper()
	var rt *client.Runtime
	var err error
	switch driver {
	case "quickjs":
		qd := quickjs.New(quickjs.Options{InProcess: true})
		t.Cleanup(func() { qd.Close() })
		rt, err = client.NewRuntime(context.Background(), qd)
	case "node":
		path := nodetest.Path()
		if path == "" {
			if os.Getenv("CODEMODE_REQUIRE_NODE") != "" {
				t.Fatal("no Node.js")
			}
			t.Skip("no Node.js")
		}
		nd := node.New(node.Options{NodePath: path})
		rt, err = client.NewRuntime(context.Background(), nd)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rt.Close() })
	return rt
}
