package node_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/codemode-go/codemode/client"
	"github.com/codemode-go/codemode/contract"
	"github.com/codemode-go/codemode/drivers/node"
)

// nodeChildren returns the pids of this process's node children.
func nodeChildren() []int {
	var pids []int
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		f := strings.Fields(string(stat))
		cmdline, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if len(f) > 3 && f[3] == strconv.Itoa(os.Getpid()) && strings.Contains(string(cmdline), "--experimental-vm-modules") {
			pid, _ := strconv.Atoi(e.Name())
			pids = append(pids, pid)
		}
	}
	return pids
}

func TestKilledChildFailsTheRuntimeWithItsStderr(t *testing.T) {
	d := driver(t)
	before := nodeChildren()
	rt, err := client.NewRuntime(context.Background(), d)
	if err != nil {
		t.Fatal(err)
	}
	defer rt.Close()
	k, _ := contract.New()
	errc := make(chan error, 1)
	wrote := make(chan struct{})
	var once sync.Once
	go func() {
		// The stderr write is synchronous on a pipe (Linux), so once the
		// console line is seen the last words are in the pipe.
		_, err := client.New(rt, k).Run(context.Background(), `export default async function ({ console }) {
  process.stderr.write("last words\n");
  console.log("written");
  await new Promise(() => setTimeout(() => {}, 60000));
}`, client.RunOptions{OnTelemetry: func(e client.Event) {
			if e.Kind == client.EventProgramOutput {
				once.Do(func() { close(wrote) })
			}
		}})
		errc <- err
	}()
	select {
	case <-wrote:
	case err := <-errc:
		t.Fatalf("the program ended before writing: %v", err)
	case <-time.After(time.Minute):
		t.Fatal("the program did not write within a minute")
	}
	// Children of earlier tests may still be exiting: the new one is the
	// one that was not there before.
	var fresh []int
	for _, pid := range nodeChildren() {
		if !slices.Contains(before, pid) {
			fresh = append(fresh, pid)
		}
	}
	if len(fresh) != 1 {
		t.Fatalf("%d new node children (%v), want 1", len(fresh), fresh)
	}
	_ = syscall.Kill(fresh[0], syscall.SIGKILL)
	select {
	case err := <-errc:
		if !errors.Is(err, client.ErrRuntimeFailed) {
			t.Fatalf("in-flight Run returned %v, want ErrRuntimeFailed", err)
		}
	case <-time.After(time.Minute):
		t.Fatal("the in-flight run did not end")
	}
	<-rt.Done()
	f := rt.Err()
	if !errors.Is(f, client.ErrRuntimeFailed) || !strings.Contains(f.Error(), "last words") || !strings.Contains(f.Error(), "killed") {
		t.Fatalf("Finished = %+v", f)
	}
}

func TestCloseKillsAChildThatIgnoresSIGTERM(t *testing.T) {
	driver(t)
	d := node.New(node.Options{GracePeriod: 300 * time.Millisecond})
	rt, err := client.NewRuntime(context.Background(), d)
	if err != nil {
		t.Fatal(err)
	}
	k, _ := contract.New()
	out, err := client.New(rt, k).Run(context.Background(), `export default async function () {
  process.on("SIGTERM", () => {});
  setInterval(() => {}, 1000);
}`, client.RunOptions{})
	if err != nil || out.Kind != client.Success {
		t.Fatalf("%+v %v", out, err)
	}
	start := time.Now()
	rt.Close()
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("Close took %s", d)
	}
	time.Sleep(100 * time.Millisecond)
	for _, pid := range nodeChildren() {
		if err := syscall.Kill(pid, 0); err == nil {
			var stat []byte
			stat, _ = os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
			if !strings.Contains(string(stat), ") Z ") {
				t.Fatalf("node child %d still running after Close", pid)
			}
		}
	}
}

// TestPoolReplacesAStuckRuntime: a program in a busy loop cannot be
// interrupted on Node.js; once its execution is cancelled, the runtime fails
// its liveness probe (10 s) and is stopped (a program sent to
// it meanwhile fails, saying so), and the pool runs the next program on a
// fresh runtime.
func TestPoolReplacesAStuckRuntime(t *testing.T) {
	if testing.Short() {
		t.Skip("a long sweep; go test without -short runs it")
	}
	d := driver(t)
	ctx := context.Background()
	pool, err := client.NewPool(ctx, d, client.PoolOptions{Size: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	c, err := contract.New()
	if err != nil {
		t.Fatal(err)
	}
	cl := client.New(pool, c)
	busy, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
	defer cancel()
	if _, err := cl.Run(busy, `export default async function () { while (true) {} }`, client.RunOptions{}); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("busy program: %v", err)
	}
	next, cancelNext := context.WithTimeout(ctx, 40*time.Second)
	defer cancelNext()
	const fresh = `export default async function ({ result }) { result.appendText("fresh"); }`
	// A program sent to the stuck runtime meanwhile fails, saying why.
	out, err := cl.Run(next, fresh, client.RunOptions{})
	if err != nil {
		if !errors.Is(err, client.ErrRuntimeFailed) || !strings.Contains(err.Error(), "it is stuck") {
			t.Fatalf("program sent to the stuck runtime: %v", err)
		}
		out, err = cl.Run(next, fresh, client.RunOptions{})
	}
	if err != nil || out.Kind != client.Success || out.Content[0].Text != "fresh" {
		t.Fatalf("next program: %+v %v", out, err)
	}
}
