package durable_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
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
	"github.com/codemode-go/codemode/typecheck"
)

// service is a fake upstream with real Go methods: it counts calls and
// remembers what was created and reverted, so tests can see what a replay
// did not call again.
type service struct {
	mu         sync.Mutex
	calls      map[string]int
	created    []string
	reverted   []string
	events     []string // lifecycle hooks, in order
	failRevert map[string]bool
	counter    int
}

func newService() *service {
	return &service{calls: map[string]int{}, failRevert: map[string]bool{}}
}

func (s *service) count(method string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.calls[method]
}

func (s *service) record(format string, args ...any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.events = append(s.events, fmt.Sprintf(format, args...))
}

type repoInput struct {
	Repo string `json:"repo"`
}
type pull struct {
	Number int    `json:"number"`
	Title  string `json:"title"`
}
type issueInput struct {
	Title string `json:"title"`
}
type issue struct {
	ID    int    `json:"id"`
	Title string `json:"title"`
}
type empty struct{}
type countOutput struct {
	N int `json:"n"`
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// github is the seeds' example connector: a read, a write that needs
// approval (with a revert), a write that does not, and a reexecute read.
func (s *service) github() connector {
	list := must(funcTool("list_pull_requests", "Open pull requests of a repository.",
		func(ctx context.Context, in repoInput) ([]pull, error) {
			s.mu.Lock()
			s.calls["list_pull_requests"]++
			s.mu.Unlock()
			return []pull{{1, "Fix " + in.Repo}, {2, "Docs"}}, nil
		}))
	create := must(funcTool("create_issue", "Creates an issue.",
		func(ctx context.Context, in issueInput) (issue, error) {
			if durable.ExecutionIDFrom(ctx) == "" {
				return issue{}, errors.New("no execution ID on the context")
			}
			s.mu.Lock()
			defer s.mu.Unlock()
			s.calls["create_issue"]++
			s.created = append(s.created, in.Title)
			return issue{ID: len(s.created), Title: in.Title}, nil
		}))
	create.RequiresApproval = true
	create.Revert = contract.TypedRevert(func(ctx context.Context, in issueInput, out issue) error {
		s.mu.Lock()
		defer s.mu.Unlock()
		s.reverted = append(s.reverted, in.Title)
		return nil
	})
	label := must(funcTool("add_label", "Adds a label (no approval).",
		func(ctx context.Context, in issueInput) (issue, error) {
			s.mu.Lock()
			defer s.mu.Unlock()
			s.calls["add_label"]++
			s.created = append(s.created, in.Title)
			return issue{ID: len(s.created), Title: in.Title}, nil
		}))
	label.Revert = contract.TypedRevert(func(ctx context.Context, in issueInput, out issue) error {
		s.mu.Lock()
		defer s.mu.Unlock()
		if s.failRevert[in.Title] {
			return fmt.Errorf("label %s is locked", in.Title)
		}
		s.reverted = append(s.reverted, in.Title)
		return nil
	})
	counter := must(funcTool("counter", "A value that changes on every call.",
		func(ctx context.Context, _ empty) (countOutput, error) {
			s.mu.Lock()
			defer s.mu.Unlock()
			s.calls["counter"]++
			s.counter++
			return countOutput{N: s.counter}, nil
		}))
	counter.Replay = contract.ReplayReexecute
	fail := must(funcTool("flaky", "Always fails.",
		func(ctx context.Context, _ empty) (countOutput, error) {
			s.mu.Lock()
			defer s.mu.Unlock()
			s.calls["flaky"]++
			return countOutput{}, errors.New("upstream is down")
		}))
	return connector{
		Name:  "github",
		Tools: []connectorTool{list, create, label, counter, fail},
		OnPassEnd: func(ctx context.Context, id string, st store.Status) error {
			s.record("github.OnPassEnd(%s)", st)
			return nil
		},
		DisposeExecution: func(ctx context.Context, id string, st store.Status) error {
			s.record("github.DisposeExecution(%s)", st)
			return errors.New("dispose errors are ignored")
		},
	}
}

var (
	sharedDriver  *quickjs.Driver
	sharedRuntime *client.Runtime
	runtimeOnce   sync.Once
	runtimeErr    error
)

// executor is one real QuickJS runtime shared by the package's tests.
func executor(t testing.TB) client.Executor {
	t.Helper()
	runtimeOnce.Do(func() {
		sharedDriver = quickjs.New(quickjs.Options{Timeout: 10 * time.Second})
		sharedRuntime, runtimeErr = client.NewRuntime(context.Background(), sharedDriver)
	})
	if runtimeErr != nil {
		t.Fatal(runtimeErr)
	}
	return sharedRuntime
}

func openStore(t testing.TB, path string) store.Store {
	t.Helper()
	s, err := sqlite.Open(context.Background(), path, sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func newHandle(t testing.TB, st store.Store, opts durable.Options, cs ...connector) *durable.Handle {
	t.Helper()
	return newHandleOn(t, executor(t), st, opts, cs...)
}

func newHandleOn(t testing.TB, ex client.Executor, st store.Store, opts durable.Options, cs ...connector) *durable.Handle {
	t.Helper()
	c, err := contractOf(cs...)
	if err != nil {
		t.Fatal(err)
	}
	h, err := durable.New(st, ex, c, withHooks(opts, cs))
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func fixture(t testing.TB) (*durable.Handle, *service, store.Store) {
	return fixtureOn(t, executor(t))
}

// fixtureOn is fixture on the executor ex (a driver of onEveryDriver).
func fixtureOn(t testing.TB, ex client.Executor) (*durable.Handle, *service, store.Store) {
	svc := newService()
	st := openStore(t, filepath.Join(t.TempDir(), "journal.db"))
	return newHandleOn(t, ex, st, durable.Options{}, svc.github()), svc, st
}

func execute(t testing.TB, h *durable.Handle, code string) codetool.Answer {
	t.Helper()
	out, err := h.Execute(context.Background(), code)
	if err != nil {
		t.Fatalf("Execute: %v", err)
	}
	return out
}

func approve(t testing.TB, h *durable.Handle, id string) codetool.Answer {
	t.Helper()
	out, err := h.Approve(context.Background(), id)
	if err != nil {
		t.Fatalf("Approve: %v", err)
	}
	return out
}

func wantStatus(t testing.TB, out codetool.Answer, want codetool.Status) {
	t.Helper()
	if out.Status != want {
		b, _ := json.Marshal(out)
		t.Fatalf("output %s, want status %s", b, want)
	}
}

func states(e *store.Execution) string {
	var s []string
	for _, l := range e.Log {
		s = append(s, fmt.Sprintf("%d:%s.%s=%s", l.Seq, l.Connector, l.Method, l.State))
	}
	return strings.Join(s, " ")
}

func record(t testing.TB, h *durable.Handle, id string) *store.Execution {
	t.Helper()
	e, err := h.Execution(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// The seeds' example: a read, then a write that pauses; approval replays the
// read from the journal and runs the write.
const readThenWrite = `async () => {
  const prs = await github.list_pull_requests({ repo: "agents" });
  console.log("found", prs.length);
  const created = await github.create_issue({ title: "Review " + prs[0].title });
  return { created, prs: prs.length };
}`

func TestReadThenApprovedWrite(t *testing.T) { onEveryDriver(t, testReadThenApprovedWrite) }

func testReadThenApprovedWrite(t *testing.T, ex client.Executor) {
	h, svc, _ := fixtureOn(t, ex)
	out := execute(t, h, readThenWrite)
	wantStatus(t, out, codetool.StatusPaused)
	if len(out.Pending) != 1 || out.Pending[0].Seq != 2 || out.Pending[0].Method != "create_issue" ||
		string(out.Pending[0].Args) != `{"title":"Review Fix agents"}` {
		t.Fatalf("pending %+v", out.Pending)
	}
	if !strings.HasPrefix(out.ExecutionID, "exec_") {
		t.Fatalf("execution ID %q", out.ExecutionID)
	}
	e := record(t, h, out.ExecutionID)
	if e.Status != store.StatusPaused || states(e) != "1:github.list_pull_requests=applied 2:github.create_issue=pending" {
		t.Fatalf("journal after pausing: %s %s", e.Status, states(e))
	}
	if svc.count("create_issue") != 0 {
		t.Fatal("the write ran before approval")
	}
	pending, err := h.Pending(context.Background(), "")
	if err != nil || len(pending) != 1 {
		t.Fatalf("Pending: %+v, %v", pending, err)
	}

	done := approve(t, h, out.ExecutionID)
	wantStatus(t, done, codetool.StatusCompleted)
	if got := string(done.Value); got != `{"created":{"id":1,"title":"Review Fix agents"},"prs":2}` {
		t.Fatalf("result %s", got)
	}
	if svc.count("list_pull_requests") != 1 || svc.count("create_issue") != 1 {
		t.Fatalf("calls %v: the read must be replayed, the write run once", svc.calls)
	}
	if !slices.Equal(done.Logs, []string{"found 2"}) {
		t.Fatalf("logs %q", done.Logs)
	}
	e = record(t, h, out.ExecutionID)
	if e.Status != store.StatusCompleted || states(e) != "1:github.list_pull_requests=applied 2:github.create_issue=applied" || e.Passes != 2 {
		t.Fatalf("journal after approval: %s %s passes %d", e.Status, states(e), e.Passes)
	}
	if string(e.Value) != string(done.Value) {
		t.Fatalf("recorded result %s", e.Value)
	}
	if _, err := h.Approve(context.Background(), out.ExecutionID); !errors.Is(err, durable.ErrNotPaused) ||
		!strings.Contains(err.Error(), "execution "+out.ExecutionID+" is not paused (status: completed)") {
		t.Fatalf("second approval: %v", err)
	}
}

// Promise.all of three reads and two writes that need approval: the reads
// run, both writes are pending in one pause, one approval runs both.
func TestPromiseAllPausesSiblingsTogether(t *testing.T) {
	onEveryDriver(t, testPromiseAllPausesSiblingsTogether)
}

func testPromiseAllPausesSiblingsTogether(t *testing.T, ex client.Executor) {
	h, svc, _ := fixtureOn(t, ex)
	out := execute(t, h, `async () => {
  const [a, b, c, x, y] = await Promise.all([
    github.list_pull_requests({ repo: "a" }),
    github.list_pull_requests({ repo: "b" }),
    github.list_pull_requests({ repo: "c" }),
    github.create_issue({ title: "x" }),
    github.create_issue({ title: "y" }),
  ]);
  return [a[0].title, b[0].title, c[0].title, x.title, y.title];
}`)
	wantStatus(t, out, codetool.StatusPaused)
	var seqs []uint64
	for _, p := range out.Pending {
		seqs = append(seqs, p.Seq)
	}
	if !slices.Equal(seqs, []uint64{4, 5}) {
		t.Fatalf("pending seqs %v, want [4 5]", seqs)
	}
	if svc.count("list_pull_requests") != 3 {
		t.Fatalf("reads %d, want 3", svc.count("list_pull_requests"))
	}
	done := approve(t, h, out.ExecutionID)
	wantStatus(t, done, codetool.StatusCompleted)
	if string(done.Value) != `["Fix a","Fix b","Fix c","x","y"]` {
		t.Fatalf("result %s", done.Value)
	}
	if svc.count("list_pull_requests") != 3 || svc.count("create_issue") != 2 {
		t.Fatalf("calls %v after approval", svc.calls)
	}
}

// A replay whose arguments differ from the journal ends as error.
func TestDivergenceEndsTheExecution(t *testing.T) { onEveryDriver(t, testDivergenceEndsTheExecution) }

func testDivergenceEndsTheExecution(t *testing.T, ex client.Executor) {
	h, svc, _ := fixtureOn(t, ex)
	// counter is reexecute: it runs again on replay and returns a new value,
	// so the write's arguments change.
	out := execute(t, h, `const { n } = await github.counter();
await github.create_issue({ title: "n=" + n });`)
	wantStatus(t, out, codetool.StatusPaused)
	done := approve(t, h, out.ExecutionID)
	wantStatus(t, done, codetool.StatusError)
	want := `replay divergence at step 2: expected github.create_issue({"title":"n=1"}), got github.create_issue({"title":"n=2"})`
	if !strings.Contains(done.Error, want) {
		t.Fatalf("error %q, want %q", done.Error, want)
	}
	if svc.count("create_issue") != 0 {
		t.Fatal("a diverged write ran")
	}
	if e := record(t, h, out.ExecutionID); e.Status != store.StatusError || !e.Log[0].Ephemeral || e.Log[0].Result != nil {
		t.Fatalf("journal: %s, entry 1 %+v", e.Status, e.Log[0])
	}
}

// codemode.step records its value once; the approval's replay returns it
// without running the function, in every form of code models write.
func TestStepReplaysRecordedValue(t *testing.T) { onEveryDriver(t, testStepReplaysRecordedValue) }

func testStepReplaysRecordedValue(t *testing.T, ex client.Executor) {
	forms := map[string]string{
		"async arrow": `async () => {
  const t = await codemode.step("t", () => Math.random());
  await github.create_issue({ title: "t=" + t });
  return t;
}`,
		"statements": `const t = await codemode.step("t", async () => Math.random());
await github.create_issue({ title: "t=" + t });
t`,
		"scope parameter": `async ({ codemode, github }) => {
  const t = await codemode.step("t", () => Math.random());
  await github.create_issue({ title: "t=" + t });
  return t;
};`,
		"module": "export default async ({ codemode, github }) => {\n  const t = await codemode.step(\"t\", () => Math.random());\n  await github.create_issue({ title: \"t=\" + t });\n  return t;\n};",
		"fenced": "```ts\nconst t = await codemode.step(\"t\", () => Math.random());\nawait github.create_issue({ title: \"t=\" + t });\nt\n```",
	}
	for name, code := range forms {
		t.Run(name, func(t *testing.T) {
			h, _, _ := fixtureOn(t, ex)
			out := execute(t, h, code)
			wantStatus(t, out, codetool.StatusPaused)
			var args issueInput
			if err := json.Unmarshal(out.Pending[0].Args, &args); err != nil {
				t.Fatal(err)
			}
			done := approve(t, h, out.ExecutionID)
			wantStatus(t, done, codetool.StatusCompleted)
			if "t="+string(done.Value) != args.Title {
				t.Fatalf("step value %s on replay, %s on the first pass", done.Value, args.Title)
			}
			e := record(t, h, out.ExecutionID)
			// The step's end is recorded: its function drew a random number,
			// which the replay draws too.
			if states(e) != "1:codemode.step=applied 2:codemode.step_end=applied 3:github.create_issue=applied" || string(e.Log[0].Args) != `{"name":"t"}` {
				t.Fatalf("journal %s (%s)", states(e), e.Log[0].Args)
			}
		})
	}
}

func TestStepFunctionThatThrowsRunsAgain(t *testing.T) {
	h, _, _ := fixture(t)
	out := execute(t, h, `let tries = 0;
try { await codemode.step("x", () => { throw new Error("nope") }) } catch (e) { tries++ }
const v = await codemode.step("y", () => ({ when: "now", n: [1, 2] }));
await github.create_issue({ title: JSON.stringify(v) });
[tries, v]`)
	wantStatus(t, out, codetool.StatusPaused)
	done := approve(t, h, out.ExecutionID)
	wantStatus(t, done, codetool.StatusCompleted)
	if string(done.Value) != `[1,{"when":"now","n":[1,2]}]` {
		t.Fatalf("result %s", done.Value)
	}
	e := record(t, h, out.ExecutionID)
	if states(e) != "1:codemode.step=error 3:codemode.step=applied 5:github.create_issue=applied" {
		t.Fatalf("journal %s", states(e))
	}
}

// A step whose function returns what JSON cannot hold ends its entry in
// error with a message that says so: the program gets a TypeError naming
// the step and the value's place, and no entry is left executing.
func TestStepValueThatIsNotJSON(t *testing.T) { onEveryDriver(t, testStepValueThatIsNotJSON) }

func testStepValueThatIsNotJSON(t *testing.T, ex client.Executor) {
	h, _, _ := fixtureOn(t, ex)
	for _, tc := range []struct{ name, value, want string }{
		{"function", `() => 1`, `input.value is a function`},
		{"bigint", `10n`, `is a bigint`},
		{"nested bigint", `({ a: [1, 2n] })`, `.a[1] is a bigint`},
		{"cycle", `(() => { const o = { n: 1 }; o.self = o; return o; })()`, `a circular reference`},
		{"date", `new Date(0)`, `not a plain object`},
		{"symbol", `Symbol("s")`, `a symbol`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := execute(t, h, `let msg = "";
try { await codemode.step("s", () => `+tc.value+`) } catch (e) { msg = e.name + ": " + e.message }
msg`)
			wantStatus(t, out, codetool.StatusCompleted)
			var msg string
			if err := json.Unmarshal(out.Value, &msg); err != nil {
				t.Fatal(err)
			}
			want := `TypeError: codemode.step("s") returned a value that is not JSON`
			if !strings.HasPrefix(msg, want) || !strings.Contains(msg, strings.TrimPrefix(tc.want, "input.")) {
				t.Fatalf("the program caught %q, want %q... %q", msg, want, tc.want)
			}
			e := record(t, h, out.ExecutionID)
			if states(e) != "1:codemode.step=error" || !strings.Contains(e.Log[0].Error, "not JSON") {
				t.Fatalf("journal %s, error %q", states(e), e.Log[0].Error)
			}
		})
	}
	t.Run("uncaught", func(t *testing.T) {
		out := execute(t, h, `const a = 1;
await codemode.step("s", () => 10n); 1`)
		wantStatus(t, out, codetool.StatusError)
		// The place is the program's call of step (the SDK's error is made
		// after an await, with the stack of the call).
		if !strings.Contains(out.Error, `codemode.step("s") returned a value that is not JSON`) || !strings.Contains(out.Error, "at agent.ts:2:") || !strings.Contains(out.Error, `await codemode.step("s", () => 10n)`) {
			t.Fatalf("error %q, want the message, then the place and line of the call", out.Error)
		}
		if e := record(t, h, out.ExecutionID); states(e) != "1:codemode.step=error" {
			t.Fatalf("journal %s", states(e))
		}
	})
	t.Run("undefined", func(t *testing.T) {
		out := execute(t, h, `const v = await codemode.step("s", () => undefined); typeof v`)
		wantStatus(t, out, codetool.StatusCompleted)
		if string(out.Value) != `"undefined"` {
			t.Fatalf("result %s", out.Value)
		}
		if e := record(t, h, out.ExecutionID); states(e) != "1:codemode.step=applied" {
			t.Fatalf("journal %s", states(e))
		}
	})
}

func TestRejectEndsTheExecution(t *testing.T) {
	h, svc, _ := fixture(t)
	out := execute(t, h, readThenWrite)
	wantStatus(t, out, codetool.StatusPaused)
	ctx := context.Background()
	if ok, err := h.Reject(ctx, out.ExecutionID, 1); ok || err != nil {
		t.Fatalf("Reject of an applied entry: %v, %v", ok, err)
	}
	if ok, err := h.Reject(ctx, out.ExecutionID, 2); !ok || err != nil {
		t.Fatalf("Reject: %v, %v", ok, err)
	}
	e := record(t, h, out.ExecutionID)
	if e.Status != store.StatusRejected || e.Error != "Action github.create_issue rejected by user" {
		t.Fatalf("after reject: %s %q", e.Status, e.Error)
	}
	if states(e) != "1:github.list_pull_requests=applied 2:github.create_issue=error" {
		t.Fatalf("journal %s", states(e))
	}
	if ok, _ := h.Reject(ctx, out.ExecutionID, 2); ok {
		t.Fatal("a second reject succeeded")
	}
	if _, err := h.Approve(ctx, out.ExecutionID); !errors.Is(err, durable.ErrNotPaused) || !strings.Contains(err.Error(), "(status: rejected)") {
		t.Fatalf("approval after reject: %v", err)
	}
	if svc.count("create_issue") != 0 {
		t.Fatal("a rejected write ran")
	}
	if p, _ := h.Pending(ctx, ""); len(p) != 0 {
		t.Fatalf("pending after reject: %+v", p)
	}
}

func TestRollbackRevertsInReverseOrderAndReportsFailures(t *testing.T) {
	h, svc, _ := fixture(t)
	svc.failRevert["b"] = true
	out := execute(t, h, `for (const title of ["a", "b", "c"]) await github.add_label({ title });
await github.list_pull_requests({ repo: "r" });
"ok"`)
	wantStatus(t, out, codetool.StatusCompleted)
	err := h.Rollback(context.Background(), out.ExecutionID)
	var rb *durable.RollbackError
	if !errors.As(err, &rb) || rb.Reverted != 2 || len(rb.Failures) != 1 ||
		!strings.Contains(err.Error(), "rollback reverted 2 action(s) but 1 failed: github.add_label (seq 2): label b is locked") {
		t.Fatalf("Rollback: %v", err)
	}
	if !slices.Equal(svc.reverted, []string{"c", "a"}) {
		t.Fatalf("reverted %v, want [c a] (reverse order, b failed)", svc.reverted)
	}
	e := record(t, h, out.ExecutionID)
	if e.Status != store.StatusRolledBack ||
		states(e) != "1:github.add_label=reverted 2:github.add_label=applied 3:github.add_label=reverted 4:github.list_pull_requests=applied" {
		t.Fatalf("journal %s %s", e.Status, states(e))
	}
	// A second rollback retries what is still applied.
	svc.failRevert["b"] = false
	if err := h.Rollback(context.Background(), out.ExecutionID); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(svc.reverted, []string{"c", "a", "b"}) {
		t.Fatalf("reverted %v", svc.reverted)
	}
}

func TestRollbackWithNothingToRevertKeepsStatus(t *testing.T) {
	h, _, _ := fixture(t)
	out := execute(t, h, `await github.list_pull_requests({ repo: "r" }); 1`)
	if err := h.Rollback(context.Background(), out.ExecutionID); err != nil {
		t.Fatal(err)
	}
	if e := record(t, h, out.ExecutionID); e.Status != store.StatusCompleted {
		t.Fatalf("status %s, want completed (nothing reverted)", e.Status)
	}
}

func TestLifecycleHookOrder(t *testing.T) {
	svc := newService()
	ends := 0
	opts := durable.Options{
		OnPassEnd: func(ctx context.Context, id string, st store.Status) error {
			if durable.ExecutionIDFrom(ctx) != id {
				svc.record("OnPassEnd without its execution ID on the context")
			}
			svc.record("OnPassEnd(%s)", st)
			return nil
		},
		OnEnd: func(ctx context.Context, id string, st store.Status) error {
			svc.record("OnEnd(%s)", st)
			if ends++; ends == 2 {
				panic("a panicking hook is contained")
			}
			return errors.New("hook errors are logged, not returned")
		},
	}
	h := newHandle(t, openStore(t, filepath.Join(t.TempDir(), "j.db")), opts, svc.github())
	out := execute(t, h, readThenWrite)
	wantStatus(t, out, codetool.StatusPaused)
	wantStatus(t, approve(t, h, out.ExecutionID), codetool.StatusCompleted)
	if err := h.Rollback(context.Background(), out.ExecutionID); err != nil {
		t.Fatal(err)
	}
	want := []string{"OnPassEnd(paused)", "OnPassEnd(completed)", "OnEnd(completed)", "OnEnd(rolled_back)"}
	if !slices.Equal(svc.events, want) {
		t.Fatalf("hooks\n%s\nwant\n%s", strings.Join(svc.events, "\n"), strings.Join(want, "\n"))
	}
}

func TestOversizeValues(t *testing.T) {
	h, _, _ := fixture(t)
	big := `"x".repeat(1000001)`
	cases := []struct {
		name, code, want string
	}{
		{"arguments", `await github.create_issue({ title: ` + big + ` })`, "the arguments of github.create_issue is 1000013 characters of JSON, over the limit of 1000000; store the data elsewhere"},
		{"step value", `await codemode.step("s", () => ` + big + `)`, `the result of step "s" is 1000003 characters of JSON`},
		{"code", "// " + strings.Repeat("y", 1000000) + "\n1", "the code is 1000008 characters of JSON"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out := execute(t, h, c.code)
			wantStatus(t, out, codetool.StatusError)
			if !strings.Contains(out.Error, c.want) {
				t.Fatalf("error %q, want %q", out.Error, c.want)
			}
			e := record(t, h, out.ExecutionID)
			if e.Status != store.StatusError {
				t.Fatalf("status %s", e.Status)
			}
			for _, l := range e.Log {
				if l.State == store.EntryExecuting {
					t.Fatalf("an entry is left executing: %s", states(e))
				}
			}
		})
	}
	t.Run("final result", func(t *testing.T) {
		out := execute(t, h, big)
		wantStatus(t, out, codetool.StatusCompleted)
		if len(out.Value) != 1000003 {
			t.Fatalf("the model received %d bytes, want the whole result", len(out.Value))
		}
		e := record(t, h, out.ExecutionID)
		if !strings.Contains(string(e.Value), "result omitted from the journal: 1000003 characters of JSON") {
			t.Fatalf("recorded %.100s", e.Value)
		}
	})
}

func TestTransformResultIsNotRecorded(t *testing.T) {
	svc := newService()
	h := newHandle(t, openStore(t, filepath.Join(t.TempDir(), "j.db")), durable.Options{
		TransformResult: func(ctx context.Context, r json.RawMessage) (json.RawMessage, error) {
			return json.RawMessage(fmt.Sprintf(`{"size":%d}`, len(r))), nil
		},
	}, svc.github())
	out := execute(t, h, `[1, 2, 3]`)
	if string(out.Value) != `{"size":7}` {
		t.Fatalf("model saw %s", out.Value)
	}
	if e := record(t, h, out.ExecutionID); string(e.Value) != `[1,2,3]` {
		t.Fatalf("journal kept %s", e.Value)
	}
}

func TestProgramFailureIsAnOutput(t *testing.T) {
	h, svc, _ := fixture(t)
	out := execute(t, h, `console.log("before"); throw new TypeError("bad input")`)
	wantStatus(t, out, codetool.StatusError)
	if !strings.Contains(out.Error, "TypeError: bad input") || !slices.Equal(out.Logs, []string{"before"}) {
		t.Fatalf("output %+v", out)
	}
	// A connector failure reaches the program; on replay it is the recorded
	// failure, not a second call.
	out = execute(t, h, `let msg = "";
try { await github.flaky() } catch (e) { msg = e.message }
await github.create_issue({ title: msg });
msg`)
	wantStatus(t, out, codetool.StatusPaused)
	done := approve(t, h, out.ExecutionID)
	wantStatus(t, done, codetool.StatusCompleted)
	if string(done.Value) != `"upstream is down"` || svc.count("flaky") != 1 {
		t.Fatalf("result %s, flaky called %d times", done.Value, svc.count("flaky"))
	}
}

// namedError is a connector failure with a name and properties of its
// own, as connector/openapi's HTTPError has.
type namedError struct{ msg string }

func (e *namedError) Error() string     { return e.msg }
func (e *namedError) ErrorName() string { return "HTTPError" }
func (e *namedError) ErrorProperties() map[string]any {
	return map[string]any{"status": 404, "path": "/gone"}
}

// A connector failure the program tells apart by its name, class or
// properties is the same failure on replay: recorded with them, not as a
// plain Error, or the replay takes another branch than the pass it repeats
// and diverges from the journal.
func TestRecordedFailureKeepsItsName(t *testing.T) {
	svc := newService()
	gone := must(funcTool("gone", "Always fails with an HTTPError.",
		func(ctx context.Context, _ empty) (countOutput, error) {
			svc.mu.Lock()
			defer svc.mu.Unlock()
			svc.calls["gone"]++
			return countOutput{}, &namedError{msg: "HTTP 404 Not Found: GET /gone"}
		}))
	gh := svc.github()
	gh.Tools = append(gh.Tools, gone)
	h := newHandle(t, openStore(t, filepath.Join(t.TempDir(), "journal.db")), durable.Options{}, gh)
	out := execute(t, h, `let seen = "";
try { await github.gone() } catch (e) { seen = e.name + " " + e.message + " " + e.status + " " + e.path + " " + (e instanceof HTTPError) }
await github.create_issue({ title: seen });
seen`)
	wantStatus(t, out, codetool.StatusPaused)
	done := approve(t, h, out.ExecutionID)
	wantStatus(t, done, codetool.StatusCompleted)
	if string(done.Value) != `"HTTPError HTTP 404 Not Found: GET /gone 404 /gone true"` || svc.count("gone") != 1 {
		t.Fatalf("result %s, gone called %d times", done.Value, svc.count("gone"))
	}
}

func TestExpirePaused(t *testing.T) {
	h, _, _ := fixture(t)
	out := execute(t, h, readThenWrite)
	wantStatus(t, out, codetool.StatusPaused)
	ctx := context.Background()
	if ids, err := h.ExpirePaused(ctx, time.Hour); err != nil || len(ids) != 0 {
		t.Fatalf("ExpirePaused(1h) = %v, %v", ids, err)
	}
	time.Sleep(5 * time.Millisecond)
	ids, err := h.ExpirePaused(ctx, time.Millisecond)
	if err != nil || !slices.Equal(ids, []string{out.ExecutionID}) {
		t.Fatalf("ExpirePaused = %v, %v", ids, err)
	}
	e := record(t, h, out.ExecutionID)
	if e.Status != store.StatusRejected || e.Error != "expired awaiting approval" {
		t.Fatalf("%s %q", e.Status, e.Error)
	}
	if _, err := h.Approve(ctx, out.ExecutionID); !errors.Is(err, durable.ErrNotPaused) {
		t.Fatalf("approval after expiry: %v", err)
	}
}

func TestRuntimeNamesKeepSeparateHistories(t *testing.T) {
	svc := newService()
	st := openStore(t, filepath.Join(t.TempDir(), "j.db"))
	research := newHandle(t, st, durable.Options{Name: "research"}, svc.github())
	ops := newHandle(t, st, durable.Options{Name: "operations"}, svc.github())
	out := execute(t, research, readThenWrite)
	if _, err := ops.Approve(context.Background(), out.ExecutionID); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("another runtime approved: %v", err)
	}
	if l, _ := ops.Executions(context.Background(), 0); len(l) != 0 {
		t.Fatalf("operations sees %d executions", len(l))
	}
	if _, err := durable.New(st, executor(t), nil, durable.Options{Name: "no spaces"}); err == nil {
		t.Fatal("an invalid runtime name was accepted")
	}
}

func TestExecuteKeepsMaxExecutions(t *testing.T) {
	svc := newService()
	h := newHandle(t, openStore(t, filepath.Join(t.TempDir(), "j.db")), durable.Options{MaxExecutions: 2}, svc.github())
	paused := execute(t, h, readThenWrite)
	for i := range 4 {
		execute(t, h, fmt.Sprint(i))
	}
	l, err := h.Executions(context.Background(), 0)
	if err != nil {
		t.Fatal(err)
	}
	// The paused run is never pruned; the newest run came after the prune,
	// so up to MaxExecutions+1 terminal records remain.
	var ids []string
	for _, e := range l {
		ids = append(ids, string(e.Status))
	}
	if len(l) != 4 || l[3].ID != paused.ExecutionID {
		t.Fatalf("executions %v", ids)
	}
}

// The default keeps every execution; KeepFor prunes the ended ones older
// than it as a new one starts, never a paused one.
func TestRetention(t *testing.T) {
	for _, c := range []struct {
		name string
		opts durable.Options
		want int
	}{
		{"keeps every execution by default", durable.Options{}, 4},
		{"KeepFor prunes older ended ones", durable.Options{KeepFor: time.Millisecond}, 2},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := newHandle(t, openStore(t, filepath.Join(t.TempDir(), "j.db")), c.opts, newService().github())
			execute(t, h, readThenWrite) // paused: never pruned
			execute(t, h, "1")
			execute(t, h, "2")
			time.Sleep(5 * time.Millisecond) // older than KeepFor
			execute(t, h, "3")
			l, err := h.Executions(context.Background(), 0)
			if err != nil || len(l) != c.want {
				t.Fatalf("%d executions kept, %v; want %d", len(l), err, c.want)
			}
		})
	}
}

func TestDeleteExecution(t *testing.T) {
	h, svc, _ := fixture(t)
	out := execute(t, h, readThenWrite)
	ok, err := h.DeleteExecution(context.Background(), out.ExecutionID)
	if !ok || err != nil {
		t.Fatalf("DeleteExecution: %v, %v", ok, err)
	}
	if !slices.Contains(svc.events, "github.DisposeExecution(paused)") {
		t.Fatalf("deleting a paused run did not dispose it: %v", svc.events)
	}
	if ok, _ := h.DeleteExecution(context.Background(), out.ExecutionID); ok {
		t.Fatal("deleted twice")
	}
}

func TestNewRefusesBadContracts(t *testing.T) {
	st := openStore(t, filepath.Join(t.TempDir(), "j.db"))
	tool := must(funcTool("get", "Gets.", func(ctx context.Context, _ empty) (empty, error) { return empty{}, nil }))
	both := tool
	both.RequiresApproval, both.Replay = true, contract.ReplayReexecute
	cases := map[string][]connector{
		"reexecute with approval": {{Name: "svc", Tools: []connectorTool{both}}},
		"duplicate":               {{Name: "a"}, {Name: "a"}},
		"not an identifier":       {{Name: "my-svc"}},
		"duplicate tool":          {{Name: "a", Tools: []connectorTool{tool, tool}}},
	}
	for name, cs := range cases {
		if _, err := contractOf(cs...); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	input, err := contract.SchemaFor[repoInput]()
	if err != nil {
		t.Fatal(err)
	}
	inputless, err := contract.New()
	if err != nil {
		t.Fatal(err)
	}
	withInput, err := inputless.WithInput(input)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := durable.New(st, executor(t), withInput, durable.Options{}); err == nil || !strings.Contains(err.Error(), "input") {
		t.Errorf("an input-bearing contract: %v", err)
	}
	if _, err := durable.New(st, executor(t), must(contractOf()), durable.Options{Name: "no spaces"}); err == nil {
		t.Error("a runtime name with a space was accepted")
	}
}

func TestApproveNeedsRecordedConnectors(t *testing.T) {
	svc := newService()
	st := openStore(t, filepath.Join(t.TempDir(), "j.db"))
	h := newHandle(t, st, durable.Options{}, svc.github(), connector{Name: "slack"})
	out := execute(t, h, readThenWrite)
	h2 := newHandle(t, st, durable.Options{}, svc.github())
	if _, err := h2.Approve(context.Background(), out.ExecutionID); err == nil || !strings.Contains(err.Error(), "needs the namespace(s) slack") {
		t.Fatalf("approval without slack: %v", err)
	}
	if e := record(t, h, out.ExecutionID); e.Status != store.StatusPaused {
		t.Fatalf("status %s after a refused approval", e.Status)
	}
}

// A paused output carries what the program printed before the pause, from
// Execute and from Output (read back from the journal).
func TestPausedOutputHasLogs(t *testing.T) {
	h, _, _ := fixture(t)
	out := execute(t, h, `console.log("before", 1); await github.create_issue({ title: "t" }); console.log("after");`)
	if out.Status != codetool.StatusPaused || strings.Join(out.Logs, "|") != "before 1" {
		t.Fatalf("Execute = %+v, want paused with logs [before 1]", out)
	}
	again, err := h.Answer(context.Background(), out.ExecutionID)
	if err != nil || strings.Join(again.Logs, "|") != "before 1" {
		t.Fatalf("Output = %+v, %v; want logs [before 1]", again, err)
	}
}

// The agent's declarations hold the connectors and codemode.step, never the
// journal's hidden __codemode tools.
func TestTypeDefinitionsHideTheJournalTools(t *testing.T) {
	h, _, _ := fixture(t)
	d := h.TypeDefinitions()
	for _, want := range []string{"readonly github:", "list_pull_requests", "create_issue", "readonly codemode: Tools;", "step<T>(", "run(name: string, input?: unknown)"} {
		if !strings.Contains(d, want) {
			t.Errorf("declarations lack %q:\n%s", want, d)
		}
	}
	if strings.Contains(d, "__codemode") || strings.Contains(d, "step_begin") {
		t.Errorf("declarations show the hidden namespace:\n%s", d)
	}
}

// Every form models write runs, including a function after a comment and a
// bare value.
func TestCodeForms(t *testing.T) {
	h, _, _ := fixture(t)
	for code, want := range map[string]string{
		"// lists\nasync () => (await github.list_pull_requests({ repo: \"a\" })).length": "2",
		"/* c */ (async () => 7)":  "7",
		"function () { return 8 }": "8",
		"41 + 1":                   "42",
		"const x = await codemode.step(\"s\", () => 3); x * 2": "6",
		"\"text\"": `"text"`,
	} {
		out := execute(t, h, code)
		if out.Status != codetool.StatusCompleted || string(out.Value) != want {
			t.Errorf("%q: %+v, want %s", code, out, want)
		}
	}
}

// A program that branches on the clock and on Math.random replays the same
// branch after approval without codemode.step: each pass gets the first
// pass's seed and the time values (Date and performance.now) observed
// before it.
func TestClockAndRandomReplay(t *testing.T) { onEveryDriver(t, testClockAndRandomReplay) }

func testClockAndRandomReplay(t *testing.T, ex client.Executor) {
	h, svc, _ := fixtureOn(t, ex)
	out := execute(t, h, `const t = Date.now();
const r = Math.random();
const d = new Date().getTime();
const p = performance.now();
const branch = (Math.floor(t) % 2 === 0 ? "even" : "odd") + (r < 0.5 ? "-low" : "-high");
await github.create_issue({ title: [branch, r, t, d, p].join(" ") });
({ branch, r, t, d, p, later: Date.now() >= d })`)
	wantStatus(t, out, codetool.StatusPaused)
	var args issueInput
	if err := json.Unmarshal(out.Pending[0].Args, &args); err != nil {
		t.Fatal(err)
	}
	e := record(t, h, out.ExecutionID)
	if len(e.Seed) != 16 || len(e.Clock) != 3 {
		t.Fatalf("the first pass recorded seed %x and clock %v; want 16 bytes and 3 values", e.Seed, e.Clock)
	}
	time.Sleep(20 * time.Millisecond) // the real clock moves on
	done := approve(t, h, out.ExecutionID)
	wantStatus(t, done, codetool.StatusCompleted)
	var res struct {
		Branch     string
		R, T, D, P json.Number // as JavaScript wrote them
		Later      bool
	}
	dec := json.NewDecoder(strings.NewReader(string(done.Value)))
	dec.UseNumber()
	if err := dec.Decode(&res); err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprintf("%s %s %s %s %s", res.Branch, res.R, res.T, res.D, res.P); got != args.Title || !res.Later {
		t.Fatalf("the replay saw %q, the first pass %q", got, args.Title)
	}
	if svc.count("create_issue") != 1 {
		t.Fatalf("create_issue ran %d times", svc.count("create_issue"))
	}
	if e := record(t, h, out.ExecutionID); len(e.Clock) != 4 || fmt.Sprint(int64(e.Clock[0])) != res.T.String() {
		t.Fatalf("clock after the replay %v (want the 3 replayed values and the new one)", e.Clock)
	}
}

// Event.timeStamp reads the execution's recorded clock on QuickJS (the
// runner's own Event), so a replay after approval sees the first pass's
// value. It read the wall clock before, unrecorded, and the replay diverged
// at the call that carried it (an adversarial review). Node.js's Event is
// its own, not recorded.
func TestEventTimeStampReplays(t *testing.T) {
	h, svc, _ := fixture(t)
	out := execute(t, h, `const ts = new Event("x").timeStamp;
await github.create_issue({ title: String(ts) });
({ ts })`)
	wantStatus(t, out, codetool.StatusPaused)
	var args issueInput
	if err := json.Unmarshal(out.Pending[0].Args, &args); err != nil {
		t.Fatal(err)
	}
	time.Sleep(20 * time.Millisecond) // the real clock moves on
	done := approve(t, h, out.ExecutionID)
	wantStatus(t, done, codetool.StatusCompleted)
	var res struct{ TS json.Number }
	dec := json.NewDecoder(strings.NewReader(string(done.Value)))
	dec.UseNumber()
	if err := dec.Decode(&res); err != nil {
		t.Fatal(err)
	}
	if res.TS.String() != args.Title {
		t.Fatalf("the replay saw timeStamp %s, the first pass %s", res.TS, args.Title)
	}
	if ts, err := res.TS.Float64(); err != nil || ts < 0 || ts > 1e9 {
		t.Fatalf("timeStamp %s: want milliseconds since the time origin, as performance.now", res.TS)
	}
	if svc.count("create_issue") != 1 {
		t.Fatalf("create_issue ran %d times", svc.count("create_issue"))
	}
}

// result.appendText and result.appendImage reach a completed output, on the
// first pass and on the approval's pass; a paused pass's content is dropped
// with the pass.
func TestCompletedOutputCarriesContent(t *testing.T) {
	h, _, _ := fixture(t)
	out := execute(t, h, `result.appendText("hello"); result.appendImage({ data: "aGk=", mimeType: "image/png" }); 7`)
	wantStatus(t, out, codetool.StatusCompleted)
	want := []contract.Content{{Type: "text", Text: "hello"}, {Type: "image", Data: "aGk=", MimeType: "image/png"}}
	if !slices.Equal(out.Content, want) || string(out.Value) != "7" {
		t.Fatalf("content %+v result %s, want %+v and 7", out.Content, out.Value, want)
	}
	b, _ := json.Marshal(out)
	if !strings.Contains(string(b), `"content":[{"type":"text","text":"hello"},{"type":"image","data":"aGk=","mimeType":"image/png"}]`) {
		t.Errorf("JSON %s lacks the content", b)
	}
	var back codetool.Answer
	if err := json.Unmarshal(b, &back); err != nil || !slices.Equal(back.Content, want) {
		t.Errorf("Unmarshal(%s) = %+v, %v", b, back.Content, err)
	}
	out = execute(t, h, `result.appendText("before"); const c = await github.create_issue({ title: "x" }); result.appendText("made " + c.id); c.id`)
	wantStatus(t, out, codetool.StatusPaused)
	out = approve(t, h, out.ExecutionID)
	wantStatus(t, out, codetool.StatusCompleted)
	if want := []contract.Content{{Type: "text", Text: "before"}, {Type: "text", Text: "made 1"}}; !slices.Equal(out.Content, want) {
		t.Errorf("approved content %+v, want %+v", out.Content, want)
	}
}

// A connector call inside codemode.step is journaled, and once the step's
// value is recorded a replay skips its seq, so the calls after the step
// replay without divergence; a call inside a step that pauses runs the step
// again on approval with its calls replayed.
func TestConnectorCallsInsideAStep(t *testing.T) { onEveryDriver(t, testConnectorCallsInsideAStep) }

func testConnectorCallsInsideAStep(t *testing.T, ex client.Executor) {
	t.Run("recorded step is skipped", func(t *testing.T) {
		h, svc, _ := fixtureOn(t, ex)
		out := execute(t, h, `const prs = await codemode.step("prs", async () => {
  const a = await github.list_pull_requests({ repo: "a" });
  const inner = await codemode.step("inner", () => 5);
  const b = await github.list_pull_requests({ repo: "b" });
  return a.length + b.length + inner;
});
const c = await github.create_issue({ title: "n=" + prs });
const after = await github.list_pull_requests({ repo: "after" });
[prs, c.id, after.length]`)
		wantStatus(t, out, codetool.StatusPaused)
		done := approve(t, h, out.ExecutionID)
		wantStatus(t, done, codetool.StatusCompleted)
		if string(done.Value) != `[9,1,2]` {
			t.Fatalf("result %s", done.Value)
		}
		if n := svc.count("list_pull_requests"); n != 3 {
			t.Errorf("list_pull_requests ran %d times, want 3 (once per call, none replayed)", n)
		}
		e := record(t, h, out.ExecutionID)
		want := "1:codemode.step=applied 2:github.list_pull_requests=applied 3:codemode.step=applied 5:github.list_pull_requests=applied 6:codemode.step_end=applied 7:github.create_issue=applied 8:github.list_pull_requests=applied"
		if states(e) != want {
			t.Fatalf("journal %s\nwant    %s", states(e), want)
		}
		if len(done.Pending) != 0 || e.Status != store.StatusCompleted {
			t.Errorf("status %s", e.Status)
		}
	})
	t.Run("pause inside a step", func(t *testing.T) {
		h, svc, _ := fixtureOn(t, ex)
		out := execute(t, h, `const id = await codemode.step("make", async () => {
  await github.list_pull_requests({ repo: "a" });
  return (await github.create_issue({ title: "inside" })).id;
});
const l = await github.add_label({ title: "after" });
[id, l.id]`)
		wantStatus(t, out, codetool.StatusPaused)
		done := approve(t, h, out.ExecutionID)
		wantStatus(t, done, codetool.StatusCompleted)
		if string(done.Value) != `[1,2]` || svc.count("list_pull_requests") != 1 || svc.count("create_issue") != 1 {
			t.Fatalf("result %s, list ran %d, create ran %d", done.Value, svc.count("list_pull_requests"), svc.count("create_issue"))
		}
		e := record(t, h, out.ExecutionID)
		want := "1:codemode.step=applied 2:github.list_pull_requests=applied 3:github.create_issue=applied 4:codemode.step_end=applied 5:github.add_label=applied"
		if states(e) != want {
			t.Fatalf("journal %s\nwant    %s", states(e), want)
		}
		// A later approval-free replay is not possible on a completed run;
		// a rollback skips the step entries and reverts the two writes.
		if err := h.Rollback(context.Background(), out.ExecutionID); err != nil {
			t.Fatal(err)
		}
		if e := record(t, h, out.ExecutionID); e.Status != store.StatusRolledBack {
			t.Fatalf("status after rollback %s", e.Status)
		}
	})
}

// The seeds' own example, codemode.step("created-at", () => Date.now()):
// the clock values the step's function read are skipped on replay, so the
// program's later Date.now() reads replay the values of the first pass.
func TestStepThatReadsTheClockKeepsLaterTime(t *testing.T) {
	onEveryDriver(t, func(t *testing.T, ex client.Executor) {
		h, _, _ := fixtureOn(t, ex)
		out := execute(t, h, `const a = await codemode.step("created-at", async () => { await new Promise((r) => setTimeout(r, 20)); return Date.now(); });
await new Promise((r) => setTimeout(r, 20));
const b = Date.now();
await github.create_issue({ title: String(b) });
[a, b, Date.now() >= b]`)
		wantStatus(t, out, codetool.StatusPaused)
		done := approve(t, h, out.ExecutionID)
		wantStatus(t, done, codetool.StatusCompleted)
		var got []any
		if err := json.Unmarshal(done.Value, &got); err != nil || len(got) != 3 || got[0] == got[1] || got[2] != true {
			t.Fatalf("result %s: want two distinct times and true", done.Value)
		}
		e := record(t, h, out.ExecutionID)
		if want := "1:codemode.step=applied 2:codemode.step_end=applied 3:github.create_issue=applied"; states(e) != want {
			t.Fatalf("journal %s, want %s", states(e), want)
		}
	})
}

// Error positions point into the agent's code in every form, as a plain run
// of the same code reports them, not into the code with the SDK in front.
func TestErrorPositionsAreTheCodesOwn(t *testing.T) {
	h, _, _ := fixture(t)
	for _, code := range []string{
		"const x = ) 1;",
		"const a = 1;\nconst x = ) 1;",
		"async () => { const x = ) 1; }",
		"export default async () => { const x = ) 1; }",
		"// m\nexport default async () => {\n  const x = ) 1; }",
	} {
		out := execute(t, h, code)
		wantStatus(t, out, codetool.StatusError)
		plain, err := client.New(executor(t), h.Contract()).RunCode(context.Background(), code, client.RunOptions{})
		if err != nil || plain.Error == nil {
			t.Fatalf("%q: plain run %+v %v", code, plain, err)
		}
		if out.Error != plain.Error.Text() {
			t.Errorf("%q: durable error %q, plain run %q", code, out.Error, plain.Error.Text())
		}
	}
}

// ValidateCode checks a durable program in every form, codemode.step
// included, and reports type errors in the code's own positions.
func TestValidateCode(t *testing.T) {
	checker, err := typecheck.New(typecheck.Options{})
	if err != nil {
		if os.Getenv("CODEMODE_REQUIRE_TSC") == "" {
			t.Skip(err)
		}
		t.Fatal(err)
	}
	defer checker.Close()
	h, _, _ := fixture(t)
	ctx := context.Background()
	for _, code := range []string{
		"const t = await codemode.step(\"t\", () => 1);\nconst prs = await github.list_pull_requests({ repo: \"a\" });\nprs.length + t",
		"async () => (await github.list_pull_requests({ repo: \"a\" })).length",
		"export default async ({ codemode, github }: AgentProgramScope) => { const n = await codemode.step(\"n\", () => 2); return (await github.create_issue({ title: String(n) })).id; };",
		// A program saved as a snippet reads the input codemode.run gives it.
		"const title = typeof input === \"object\" && input !== null ? input.title : \"none\";\nawait github.create_issue({ title: String(title) });",
		"const input = 1;\ninput + 1",
		// ... in a module too: as a variable, or from its scope.
		"export default async ({ github }: AgentProgramScope) => (await github.create_issue({ title: typeof input === \"string\" ? input : \"none\" })).id;",
		"export default async ({ github, input }: AgentProgramScope) => (await github.create_issue({ title: String(input?.title) })).id;",
	} {
		res, err := h.ValidateCode(ctx, checker, code)
		if err != nil || !res.Valid {
			t.Errorf("%q: %+v %v", code, res, err)
		}
	}
	res, err := h.ValidateCode(ctx, checker, "const t = await codemode.step(\"t\", () => 1);\nawait github.list_pull_requests({ repo: t });")
	if err != nil || res.Valid || len(res.Diagnostics) == 0 || res.Diagnostics[0].Line != 2 {
		t.Fatalf("wrong argument type: %+v %v", res, err)
	}
}

// A program cannot end a step it does not own: after a step's function
// threw, a forged step_end with the step's token fails (the host namespace
// is out of the program's reach, see
// TestProgramCannotReachTheHostNamespace; the journal would refuse it
// too: only a step the pass began and has not ended can be ended), and
// the step's entry stays an error.
func TestProgramCannotEndAStepItDoesNotOwn(t *testing.T) {
	h, _, _ := fixture(t)
	out := execute(t, h, `try { await codemode.step("t", () => { throw new Error("boom"); }); } catch {}
let refused = "";
try { await __codemode.step_end({ name: "t", token: 1, value: { forged: true } }); } catch (e) { refused = e.message; }
refused`)
	wantStatus(t, out, codetool.StatusCompleted)
	// __codemode is not in the program's scope at all: reading it fails.
	if v := string(out.Value); !strings.Contains(v, "step_end") && !strings.Contains(v, "undefined") {
		t.Fatalf("the forged step_end: %s", out.Value)
	}
	e := record(t, h, out.ExecutionID)
	for _, l := range e.Log {
		if l.Seq == 1 && (l.State != store.EntryError || l.Result != nil) {
			t.Fatalf("step entry %+v: want an error without a value", l)
		}
	}
}

// The journal's host namespace (__codemode: step_begin, step_end, ...)
// is out of the program's reach in every form: only the codemode object's
// methods call it. A forged step_begin would add a journal entry.
func TestProgramCannotReachTheHostNamespace(t *testing.T) {
	h, _, _ := fixture(t)
	probe := `const reached = [];
  for (const [what, f] of [
    ["__codemode", () => __codemode.step_begin({ name: "forged" })],
    ["__codemodeScope", () => __codemodeScope.__codemode.step_begin({ name: "forged" })],
    ["codemode", () => codemode.step_begin({ name: "forged" })],
  ]) { try { await f(); reached.push(what); } catch (e) { if (!(e instanceof ReferenceError || e instanceof TypeError)) reached.push(what + ": " + e.message); } }`
	for name, code := range map[string]string{
		"statements": probe + "\nreached",
		"function":   "async () => { " + probe + "\nreturn reached; }",
		"module":     "export default async (scope) => {\n  const codemode = scope.codemode, __codemodeScope = scope, __codemode = scope.__codemode;\n  " + probe + "\n  return reached;\n};",
	} {
		t.Run(name, func(t *testing.T) {
			out := execute(t, h, code)
			wantStatus(t, out, codetool.StatusCompleted)
			if string(out.Value) != "[]" {
				t.Errorf("the program reached the host namespace through %s", out.Value)
			}
			if e := record(t, h, out.ExecutionID); len(e.Log) != 0 {
				t.Errorf("the program wrote to the journal: %s", states(e))
			}
		})
	}
}

// A program that replaces eval, Function or TypeError before its first
// codemode call, or in a module's top level (which runs before the
// client's scope setup makes the codemode object), gets neither the host
// namespace through them, and its step records
// the value its function returned. A codemode object that compiled its
// implementation on first use through eval handed the host namespace to
// the module's replacement (found by an adversarial review): the object
// is compiled with the program instead.
func TestReplacedGlobalsDoNotReachTheHostNamespace(t *testing.T) {
	onEveryDriver(t, testReplacedGlobalsDoNotReachTheHostNamespace)
}

func testReplacedGlobalsDoNotReachTheHostNamespace(t *testing.T, ex client.Executor) {
	const hooks = `const realEval = eval;
globalThis.eval = (src) => { seen.push("eval"); const f = realEval(src); return typeof f === "function" ? (...a) => { seen.push(...a.filter((x) => x && typeof x.step_begin === "function").map(() => "host namespace")); return f(...a); } : f; };
globalThis.Function = function () { seen.push("Function"); };
globalThis.TypeError = class Fake extends Error {};
`
	const body = `const v = await codemode.step("s", async () => 41);
try { await codemode.step("", async () => 1); } catch {}
try { await codemode.search("x"); await codemode.run("none", {}); } catch {}
`
	for name, code := range map[string]string{
		"statements": "const seen = [];\n" + hooks + body + "({ v, seen })",
		"module":     "const seen = [];\n" + hooks + "export default async ({ codemode }) => {\n" + body + "return { v, seen };\n};",
		// export default inside a line: a module for RunCode, and now for
		// prepare too (it found export default only at a line's start, and
		// the module's codemode was undefined).
		"module on one line": "const seen = []; " + strings.ReplaceAll(hooks, "\n", " ") + "export default async ({ codemode }) => { " +
			strings.ReplaceAll(body, "\n", " ") + "return { v, seen }; };",
	} {
		t.Run(name, func(t *testing.T) {
			h, _, _ := fixtureOn(t, ex)
			e := completedWith(t, h, code, `{"v":41,"seen":[]}`)
			if len(e.Log) == 0 || e.Log[0].State != store.EntryApplied || string(e.Log[0].Result) != "41" {
				t.Fatalf("journal: %s", states(e))
			}
		})
	}
}

// Error.prepareStackTrace's call sites do not hand a program the
// runner's functions: on QuickJS, CallSite.getFunction() returned the
// runner's callTool, which reaches every namespace's tools, the hidden
// host namespace too, and the program wrote a step entry of its choosing
// (an adversarial review found it). The QuickJS runner removes the hook
// before any program runs; V8 gives no function for strict-mode frames.
func TestStackTraceHookDoesNotReachTheRunner(t *testing.T) {
	onEveryDriver(t, testStackTraceHookDoesNotReachTheRunner)
}

func testStackTraceHookDoesNotReachTheRunner(t *testing.T, ex client.Executor) {
	h, _, _ := fixtureOn(t, ex)
	e := completedWith(t, h, `const names = [];
let callTool;
try {
  Error.prepareStackTrace = (e, cs) => {
    for (const c of cs) { const f = c.getFunction(); if (typeof f === "function") { names.push(c.getFunctionName()); if (c.getFunctionName() === "callTool") callTool = f; } }
    return "";
  };
} catch {}
await github.list_pull_requests({ repo: "agents" });
await codemode.step("s", async () => 1);
let forged = null;
if (callTool) {
  const b = await callTool("__codemode", "step_begin", [{ name: "forged" }]);
  forged = await callTool("__codemode", "step_end", [{ name: "forged", token: b.token, clock: b.clock, value: "forged" }]);
}
({ names, forged })`, `{"names":[],"forged":null}`)
	if len(e.Log) != 2 {
		t.Errorf("journal: %s", states(e))
	}
}

// completedWith executes code, fails the test unless it completed with
// the result want (JSON text), and returns the execution's record.
func completedWith(t *testing.T, h *durable.Handle, code, want string) *store.Execution {
	t.Helper()
	out := execute(t, h, code)
	wantStatus(t, out, codetool.StatusCompleted)
	if string(out.Value) != want {
		t.Fatalf("result %s, want %s", out.Value, want)
	}
	return record(t, h, out.ExecutionID)
}

// The host keeps a step's clock count at its beginning rather than take
// it back from the program: a program that rewrote step_begin's answer
// (a then getter on Object.prototype runs when the answer resolves)
// recorded a step that read the clock two million times, and the
// approval's replay ran out of memory before the approved write.
func TestForgedStepClockIsNotRecorded(t *testing.T) {
	onEveryDriver(t, testForgedStepClockIsNotRecorded)
}

func testForgedStepClockIsNotRecorded(t *testing.T, ex client.Executor) {
	h, _, _ := fixtureOn(t, ex)
	out := execute(t, h, `Object.defineProperty(Object.prototype, "then", { __proto__: null, configurable: true, get() {
  if (Object.prototype.hasOwnProperty.call(this, "token")) { const b = this; delete Object.prototype.then; return (ok) => ok({ found: false, token: b.token, clock: -2000000 }); }
  return undefined; } });
const v = await codemode.step("s", async () => 41);
const created = await github.create_issue({ title: "x" });
({ v, created })`)
	wantStatus(t, out, codetool.StatusPaused)
	for _, l := range record(t, h, out.ExecutionID).Log {
		if l.Method == "step_end" {
			t.Fatalf("a step that read no clock recorded its end: %s", l.Args)
		}
	}
	done := approve(t, h, out.ExecutionID)
	wantStatus(t, done, codetool.StatusCompleted)
}

// A module that exports a function named then does not get the raw
// scope: the runners resolved a promise with the module's namespace, which
// called the export with the runner's resolve function; the program
// resolved with a default export of its own, which the runner called with
// the scope before the client's scope setup, hidden journal tools
// included (an adversarial review found it, on every driver).
func TestModuleThenExportDoesNotGetTheScope(t *testing.T) {
	onEveryDriver(t, testModuleThenExportDoesNotGetTheScope)
}

func testModuleThenExportDoesNotGetTheScope(t *testing.T, ex client.Executor) {
	h, _, _ := fixtureOn(t, ex)
	e := completedWith(t, h, `export function then(resolve) {
  resolve({ default: async (scope) => {
    const j = scope.__codemode;
    const b = await j.step_begin({ name: "forged" });
    return await j.step_end({ name: "forged", token: b.token, value: "forged by program" });
  } });
}
export default async ({ codemode }) => typeof codemode.step;`, `"function"`)
	if len(e.Log) != 0 {
		t.Errorf("journal: %s", states(e))
	}
}

// A failed program's error names where it failed in the agent's code and
// shows the agent's own lines there, in every form, for a throw and for a
// tool's input validation failure (whose client excerpt is of the prepared
// program, the prelude included).
func TestErrorsShowTheAgentsLines(t *testing.T) {
	h, _, _ := fixture(t)
	for _, c := range []struct {
		code, want string
	}{
		{"const a = 1;\nthrow new Error(\"x\" + a)", "Error: x1\n  at agent.ts:2:23\n  1 | const a = 1;\n> 2 | throw new Error(\"x\" + a)\n    |                       ^"},
		{"await github.create_issue({ title: 1 });", "  at agent.ts:1:14\n> 1 | await github.create_issue({ title: 1 });\n    |              ^"},
		{"const t = 1;\nawait github.create_issue({ title: t });\nreturn 2;", "  at agent.ts:2:14\n  1 | const t = 1;\n> 2 | await github.create_issue({ title: t });\n    |              ^\n  3 | return 2;"},
		{"async () => { throw new TypeError(\"bad\") }", "TypeError: bad\n  at agent.ts:1:25\n> 1 | async () => { throw new TypeError(\"bad\") }\n    |                         ^"},
		{"// m\nexport default async () => {\n  throw new Error(\"m\") }", "Error: m\n  at agent.ts:3:13\n  2 | export default async () => {\n> 3 |   throw new Error(\"m\") }\n    |             ^"},
	} {
		out := execute(t, h, c.code)
		wantStatus(t, out, codetool.StatusError)
		if !strings.HasSuffix(out.Error, c.want) || strings.Contains(out.Error, "__codemode") {
			t.Errorf("%q: error\n%s\nwant it to end with\n%s", c.code, out.Error, c.want)
		}
	}
}

// A call of a tool codemode does not have names what it has, in every
// form, and, when another namespace has that tool, where it is; the SDK's
// own members and a look at codemode's properties work as before.
func TestMissingToolNamesItsNamespace(t *testing.T) {
	h, _, _ := fixture(t)
	const want = "TypeError: unknown tool codemode.list_pulls: the contract declares search, describe; codemode also has step, run"
	for _, code := range []string{
		`await codemode.list_pulls({ repo: "a/b" })`,
		`async () => await codemode.list_pulls({ repo: "a/b" })`,
		"export default async ({ codemode }) => await codemode.list_pulls({ repo: \"a/b\" });",
	} {
		out := execute(t, h, code)
		wantStatus(t, out, codetool.StatusError)
		if !strings.HasPrefix(out.Error, want+"\n") {
			t.Errorf("%q: error %q, want it to start with %q", code, out.Error, want)
		}
	}
	out := execute(t, h, `await codemode.list_pull_requests({ repo: "a/b" })`)
	if want := "TypeError: unknown tool codemode.list_pull_requests: the contract declares search, describe; codemode also has step, run (github.list_pull_requests is a tool of github)\n"; !strings.HasPrefix(out.Error, want) {
		t.Errorf("error %q, want it to start with %q", out.Error, want)
	}
	out = execute(t, h, `[typeof codemode.step, typeof codemode.then, JSON.stringify(codemode), await codemode.step("s", () => 1)]`)
	wantStatus(t, out, codetool.StatusCompleted)
	if string(out.Value) != `["function","undefined","{}",1]` {
		t.Fatalf("result %s", out.Value)
	}
}

// A call's result is recorded with the pass's next journal write, or
// within a few milliseconds when the program makes no other call: a
// reader of the journal sees it applied while the program still runs.
func TestResultRecordedWhileProgramWaits(t *testing.T) {
	ids := make(chan string, 1)
	get := must(funcTool("get", "Returns its input.", func(ctx context.Context, in repoInput) (repoInput, error) {
		select {
		case ids <- durable.ExecutionIDFrom(ctx):
		default:
		}
		return in, nil
	}))
	h := newHandle(t, openStore(t, filepath.Join(t.TempDir(), "j.db")), durable.Options{}, connector{Name: "svc", Tools: []connectorTool{get}})
	done := make(chan codetool.Answer, 1)
	go func() {
		out, err := h.Execute(context.Background(), `await svc.get({ repo: "a" }); await new Promise((r) => setTimeout(r, 1500)); 1`)
		if err != nil {
			t.Error(err)
		}
		done <- out
	}()
	id := <-ids
	deadline := time.Now().Add(time.Second)
	for {
		e := record(t, h, id)
		if len(e.Log) == 1 && e.Log[0].State == store.EntryApplied && string(e.Log[0].Result) == `{"repo":"a"}` {
			if e.Status != store.StatusRunning {
				t.Fatalf("the result was recorded only when the run ended (%s)", e.Status)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the result is not recorded a second after the call returned: %s", states(e))
		}
		time.Sleep(5 * time.Millisecond)
	}
	wantStatus(t, <-done, codetool.StatusCompleted)
}

// ApprovePending approves only the actions a person saw: an approval of a
// pause that has since moved on (another approval replayed it to its next
// action) is refused and leaves the execution paused, and of two
// approvals of one pause at once only one replays.
func TestApprovePendingApprovesWhatWasSeen(t *testing.T) {
	h, svc, _ := fixture(t)
	ctx := context.Background()
	const code = `await github.create_issue({ title: "first" }); await github.create_issue({ title: "second" }); 1`
	out := execute(t, h, code)
	wantStatus(t, out, codetool.StatusPaused)
	first := out.Pending[0].Seq
	next, err := h.ApprovePending(ctx, out.ExecutionID, []uint64{first})
	if err != nil {
		t.Fatal(err)
	}
	wantStatus(t, next, codetool.StatusPaused)
	second := next.Pending[0].Seq
	// A second person approves the first action too, late.
	_, err = h.ApprovePending(ctx, out.ExecutionID, []uint64{first})
	if !errors.Is(err, durable.ErrPendingChanged) || !strings.Contains(err.Error(), fmt.Sprintf("awaits approval of %d (github.create_issue", second)) {
		t.Fatalf("a late approval of action %d gave %v, want ErrPendingChanged naming action %d", first, err, second)
	}
	if e := record(t, h, out.ExecutionID); e.Status != store.StatusPaused || svc.count("create_issue") != 1 {
		t.Fatalf("after the refused approval: status %s, create_issue ran %d times (journal %s)", e.Status, svc.count("create_issue"), states(e))
	}
	if _, err := h.ApprovePending(ctx, out.ExecutionID, nil); err == nil {
		t.Fatal("an approval naming no action was accepted")
	}
	done, err := h.ApprovePending(ctx, out.ExecutionID, []uint64{second})
	if err != nil {
		t.Fatal(err)
	}
	wantStatus(t, done, codetool.StatusCompleted)

	// Two approvals of one pause at once: one replays (and pauses at the
	// second action), the other is refused; the second action stays
	// pending.
	for range 5 {
		out := execute(t, h, code)
		seen := out.Pending[0].Seq
		var wg sync.WaitGroup
		errs := make([]error, 2)
		outs := make([]codetool.Answer, 2)
		for i := range 2 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				outs[i], errs[i] = h.ApprovePending(ctx, out.ExecutionID, []uint64{seen})
			}()
		}
		wg.Wait()
		ok := 0
		for i := range 2 {
			switch {
			case errs[i] == nil:
				ok++
				wantStatus(t, outs[i], codetool.StatusPaused)
			case !errors.Is(errs[i], durable.ErrPendingChanged) && !errors.Is(errs[i], durable.ErrNotPaused):
				t.Fatalf("approval %d: %v", i, errs[i])
			}
		}
		e := record(t, h, out.ExecutionID)
		if ok != 1 || e.Status != store.StatusPaused {
			t.Fatalf("%d approvals replayed, status %s (journal %s), want one and paused at the second action", ok, e.Status, states(e))
		}
	}
}

// An execution that ends while actions await approval records that they
// will not run: the audit record shows no action pending in an ended run.
func TestEndedExecutionsLeaveNoActionPending(t *testing.T) {
	h, svc, _ := fixture(t)
	ctx := context.Background()
	pendingLeft := func(e *store.Execution) []uint64 {
		var out []uint64
		for _, l := range e.Log {
			if l.State == store.EntryPending {
				out = append(out, l.Seq)
			}
		}
		return out
	}
	wantClosed := func(t *testing.T, e *store.Execution, seq uint64, reason string) {
		t.Helper()
		for _, l := range e.Log {
			if l.Seq == seq && (l.State != store.EntryError || !strings.Contains(l.Error, reason)) {
				t.Fatalf("action %d is %s (%q), want error saying %q; journal %s", seq, l.State, l.Error, reason, states(e))
			}
		}
	}
	// Two actions pause together; rejecting one ends the run and the
	// other is not run.
	out := execute(t, h, `await Promise.all([github.create_issue({ title: "a" }), github.create_issue({ title: "b" })]); 1`)
	wantStatus(t, out, codetool.StatusPaused)
	if len(out.Pending) != 2 {
		t.Fatalf("pending %+v, want two", out.Pending)
	}
	if ok, err := h.Reject(ctx, out.ExecutionID, out.Pending[0].Seq); err != nil || !ok {
		t.Fatal(ok, err)
	}
	e := record(t, h, out.ExecutionID)
	if left := pendingLeft(e); len(left) != 0 {
		t.Fatalf("after the reject, actions %v are still pending: %s", left, states(e))
	}
	wantClosed(t, e, out.Pending[1].Seq, "not run: the execution was rejected")

	// A run paused at an action ends in a divergence on approval: the
	// action it paused at is not run.
	for _, tt := range []struct{ name, code string }{{"divergence", `let first = false;
await codemode.step("probe", async () => { first = true; return 1; });
await github.create_issue({ title: first ? "one" : "two" });
1`}} {
		out := execute(t, h, tt.code)
		wantStatus(t, out, codetool.StatusPaused)
		done := approve(t, h, out.ExecutionID)
		wantStatus(t, done, codetool.StatusError)
		e := record(t, h, out.ExecutionID)
		if left := pendingLeft(e); len(left) != 0 {
			t.Fatalf("%s: actions %v are still pending: %s", tt.name, left, states(e))
		}
		wantClosed(t, e, out.Pending[0].Seq, "not run: the execution ended in error")
	}
	if n := svc.count("create_issue"); n != 0 {
		t.Fatalf("create_issue ran %d times", n)
	}
}

// ApproveShown approves only what a surface showed: the digest of the
// pending actions as shown. A surface that showed a cut copy of the
// arguments (a padded title pushing the rest past the cut) has a different
// digest and its approval is refused, the execution left paused; a late
// approval after the pause moved on is refused too.
func TestApproveShownApprovesOnlyTheDigestShown(t *testing.T) {
	h, svc, _ := fixture(t)
	ctx := context.Background()
	const code = `await github.create_issue({ title: "pad".repeat(7000) + " for mallory" }); await github.create_issue({ title: "second" }); 1`
	out := execute(t, h, code)
	wantStatus(t, out, codetool.StatusPaused)
	full := durable.ShownDigest(out.Pending)
	cutCopy := slices.Clone(out.Pending)
	cutCopy[0].Args = cutCopy[0].Args[:20_000]
	tests := []struct {
		name, digest string
	}{
		{"a cut copy of the arguments", durable.ShownDigest(cutCopy)},
		{"no action", durable.ShownDigest(nil)},
		{"another seq", durable.ShownDigest([]codetool.Pending{{Seq: out.Pending[0].Seq + 1, Connector: "github", Method: "create_issue", Args: out.Pending[0].Args}})},
	}
	for _, tt := range tests {
		_, err := h.ApproveShown(ctx, out.ExecutionID, tt.digest)
		if !errors.Is(err, durable.ErrPendingChanged) || !strings.Contains(err.Error(), "digest "+tt.digest) {
			t.Fatalf("%s: approval gave %v, want ErrPendingChanged naming the digest", tt.name, err)
		}
		if e := record(t, h, out.ExecutionID); e.Status != store.StatusPaused || svc.count("create_issue") != 0 {
			t.Fatalf("%s: after the refused approval: status %s, create_issue ran %d times", tt.name, e.Status, svc.count("create_issue"))
		}
	}
	next, err := h.ApproveShown(ctx, out.ExecutionID, full)
	if err != nil {
		t.Fatal(err)
	}
	wantStatus(t, next, codetool.StatusPaused)
	if _, err := h.ApproveShown(ctx, out.ExecutionID, full); !errors.Is(err, durable.ErrPendingChanged) {
		t.Fatalf("a late approval of the first pause gave %v, want ErrPendingChanged", err)
	}
	done, err := h.ApproveShown(ctx, out.ExecutionID, durable.ShownDigest(next.Pending))
	if err != nil {
		t.Fatal(err)
	}
	wantStatus(t, done, codetool.StatusCompleted)
	if svc.count("create_issue") != 2 {
		t.Fatalf("create_issue ran %d times, want 2", svc.count("create_issue"))
	}
}
