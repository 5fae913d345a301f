package journalui_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/codemode-go/codemode/client"
	"github.com/codemode-go/codemode/codetool"
	"github.com/codemode-go/codemode/contract"
	"github.com/codemode-go/codemode/drivers/quickjs"
	"github.com/codemode-go/codemode/durable"
	"github.com/codemode-go/codemode/durable/store"
	"github.com/codemode-go/codemode/durable/store/sqlite"
)

// TestMain runs the child side of the cross-process tests when
// JOURNALUI_CHILD is set: it opens the journal, runs one program until it
// pauses and prints the output as JSON.
func TestMain(m *testing.M) {
	if mode := os.Getenv("JOURNALUI_CHILD"); mode != "" {
		os.Exit(child(mode, os.Getenv("JOURNALUI_JOURNAL")))
	}
	// QuickJS compiled once on disk for this process and its children.
	dir, err := os.MkdirTemp("", "journalui-quickjs-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Setenv(cacheEnv, dir)
	code := m.Run()
	defer os.Exit(code)
	defer os.RemoveAll(dir)
	stopBrowser()
	if sharedRuntime != nil {
		sharedRuntime.Close()
		sharedDriver.Close()
	}
}

// cacheEnv names the QuickJS compilation cache folder the test process
// shares with its children.
const cacheEnv = "JOURNALUI_QUICKJS_CACHE"

var (
	runtimeOnce   sync.Once
	sharedDriver  *quickjs.Driver
	sharedRuntime *client.Runtime
	runtimeErr    error
)

func executor(t testing.TB) client.Executor {
	t.Helper()
	runtimeOnce.Do(func() {
		sharedDriver = quickjs.New(quickjs.Options{Timeout: 20 * time.Second, CacheDir: os.Getenv(cacheEnv)})
		sharedRuntime, runtimeErr = client.NewRuntime(context.Background(), sharedDriver)
	})
	if runtimeErr != nil {
		t.Fatal(runtimeErr)
	}
	return sharedRuntime
}

// tracker is the upstream service behind the test connector: real Go
// methods that remember what was created and reverted.
type tracker struct {
	mu       sync.Mutex
	created  []string
	reverted []string
	// gate, when set, is called by github.wait: a test holds a replay
	// there.
	gate func()
}

func (s *tracker) snapshot() (created, reverted []string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.created...), append([]string(nil), s.reverted...)
}

type repoIn struct {
	Repo string `json:"repo"`
}
type pull struct {
	Number int    `json:"number"`
	Title  string `json:"title"`
}
type issueIn struct {
	Title string `json:"title"`
	Memo  string `json:"memo,omitempty"`
	To    string `json:"to,omitempty"`
}
type issue struct {
	ID    int    `json:"id"`
	Title string `json:"title"`
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// github is the connector of the tests: a read, and a write that needs
// approval and has a revert.
func (s *tracker) github() *contract.Contract {
	list := must(contract.NewTool("list_pull_requests", "Open pull requests of a repository.",
		func(ctx context.Context, in repoIn) ([]pull, error) {
			return []pull{{1, "Fix " + in.Repo}, {2, "Docs"}}, nil
		}))
	create := must(contract.NewTool("create_issue", "Creates an issue.",
		func(ctx context.Context, in issueIn) (issue, error) {
			s.mu.Lock()
			defer s.mu.Unlock()
			s.created = append(s.created, in.Title)
			return issue{ID: 100 + len(s.created), Title: in.Title}, nil
		}))
	create = must(create.WithPolicy(contract.Policy{RequiresApproval: true, Revert: contract.TypedRevert(func(ctx context.Context, in issueIn, out issue) error {
		s.mu.Lock()
		defer s.mu.Unlock()
		if out.ID == 0 {
			return errors.New("no issue to close")
		}
		s.reverted = append(s.reverted, in.Title)
		return nil
	})}))
	// wait is answered again on every replay (not from the journal), so
	// that a test can hold a replay before the program reaches its pending
	// action.
	wait := must(contract.NewTool("wait", "Waits while a test holds it.", func(ctx context.Context, in repoIn) (pull, error) {
		s.mu.Lock()
		gate := s.gate
		s.mu.Unlock()
		if gate != nil {
			gate()
		}
		return pull{}, nil
	}))
	wait = must(wait.WithPolicy(contract.Policy{Replay: contract.ReplayReexecute}))
	return must(contract.NewNamespaced(contract.Namespace{Name: "github", Tools: []*contract.Tool{list, create, wait}}))
}

// triage reads, then creates an issue (paused until approved).
const triage = `async () => {
  const prs = await github.list_pull_requests({ repo: "acme/app" });
  console.log("found", prs.length, "pull requests");
  const created = await github.create_issue({ title: "Triage " + prs.length + " pull requests" });
  console.log("created issue", created.id);
  return created;
}`

// hostile puts markup and script in a tool's arguments: the page must show
// it as text.
const hostile = `async () => {
  await github.create_issue({ title: "<script>document.title='pwned'</script><img src=x onerror=\"document.title='pwned'\">" });
}`

func openStore(t testing.TB, path string) store.Store {
	t.Helper()
	st, err := sqlite.Open(context.Background(), path, sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

func newHandle(t testing.TB, st store.Store, svc *tracker) *durable.Handle {
	t.Helper()
	h, err := durable.New(st, executor(t), svc.github(), durable.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// fixture is a journal in a temporary SQLite file with a handle on it.
type fixture struct {
	path string
	h    *durable.Handle
	svc  *tracker
}

func newFixture(t testing.TB) *fixture {
	t.Helper()
	path := filepath.Join(t.TempDir(), "journal.db")
	svc := &tracker{}
	return &fixture{path: path, h: newHandle(t, openStore(t, path), svc), svc: svc}
}

func (f *fixture) execute(t testing.TB, code string) codetool.Answer {
	t.Helper()
	out, err := f.h.Execute(context.Background(), code)
	if err != nil {
		t.Fatalf("Execute: %v", err)
	}
	return out
}

func (f *fixture) paused(t testing.TB, code string) string {
	t.Helper()
	out := f.execute(t, code)
	if out.Status != codetool.StatusPaused {
		t.Fatalf("the program did not pause: %+v", out)
	}
	return out.ExecutionID
}

func (f *fixture) record(t testing.TB, id string) *store.Execution {
	t.Helper()
	e, err := f.h.Execution(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// child runs in a separate process: a handle of its own on the journal
// file, one program that pauses, its output on stdout.
func child(mode, path string) int {
	st, err := sqlite.Open(context.Background(), path, sqlite.Options{})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer st.Close()
	d := quickjs.New(quickjs.Options{Timeout: 20 * time.Second, CacheDir: os.Getenv(cacheEnv)})
	defer d.Close()
	rt, err := client.NewRuntime(context.Background(), d)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer rt.Close()
	svc := &tracker{}
	h, err := durable.New(st, rt, svc.github(), durable.Options{})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	code := triage
	if mode == "hostile" {
		code = hostile
	}
	out, err := h.Execute(context.Background(), code)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	b, _ := json.Marshal(out)
	fmt.Println(string(b))
	return 0
}

// pauseInAnotherProcess runs the child on the journal file and returns the
// ID of the execution it paused.
func pauseInAnotherProcess(t *testing.T, path, mode string) string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "-test.run=^$")
	cmd.Env = append(os.Environ(), "JOURNALUI_CHILD="+mode, "JOURNALUI_JOURNAL="+path)
	cmd.Stderr = os.Stderr
	raw, err := cmd.Output()
	if err != nil {
		t.Fatalf("child: %v", err)
	}
	var out codetool.Answer
	if err := json.Unmarshal([]byte(strings.TrimSpace(string(raw))), &out); err != nil {
		t.Fatalf("child printed %q: %v", raw, err)
	}
	if out.Status != codetool.StatusPaused {
		t.Fatalf("child's run did not pause: %s", raw)
	}
	return out.ExecutionID
}

// pendingOf is the pending actions of e as the code tool answers them.
func pendingOf(e *store.Execution) []codetool.Pending {
	var p []codetool.Pending
	for _, l := range e.Log {
		if l.State == store.EntryPending {
			p = append(p, codetool.Pending{Seq: l.Seq, Connector: l.Connector, Method: l.Method, Args: l.Args})
		}
	}
	return p
}
