package postgres_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/codemode-go/codemode/client"
	"github.com/codemode-go/codemode/codetool"
	"github.com/codemode-go/codemode/contract"
	"github.com/codemode-go/codemode/drivers/quickjs"
	"github.com/codemode-go/codemode/durable"
	"github.com/codemode-go/codemode/durable/store"
	"github.com/codemode-go/codemode/durable/store/postgres"
)

// TestMain runs a child replica instead of the tests when
// CODEMODE_PG_REPLICA is set (TestReplicaProcesses re-executes this binary).
func TestMain(m *testing.M) {
	if schema := os.Getenv("CODEMODE_PG_REPLICA"); schema != "" {
		os.Exit(childReplica(schema))
	}
	os.Exit(m.Run())
}

// The program of the replica tests: a write that needs no approval, then
// one that does (the run pauses there).
const program = `const n = await svc.note({ key: "n" });
const a = await svc.act({ key: "a" });
return { n, a };`

type keyInput struct {
	Key string `json:"key"`
}
type effectOutput struct {
	Key  string `json:"key"`
	Done bool   `json:"done"`
}

// effects records each connector call's side effect as a row of
// test_effects in the journal's database (so that replicas in other
// processes count into one ledger): an action applied twice shows as two
// rows.
func effectsConnector(pool *pgxpool.Pool) contract.Namespace {
	effect := func(kind string) func(ctx context.Context, in keyInput) (effectOutput, error) {
		return func(ctx context.Context, in keyInput) (effectOutput, error) {
			if _, err := pool.Exec(ctx, "INSERT INTO test_effects (execution_id, kind) VALUES ($1, $2)", durable.ExecutionIDFrom(ctx), kind); err != nil {
				return effectOutput{}, fmt.Errorf("recording the effect: %w", err)
			}
			return effectOutput{Key: in.Key, Done: true}, nil
		}
	}
	note := must(contract.NewTool("note", "A write without approval.", effect("note")))
	act := must(must(contract.NewTool("act", "A write that needs approval.", effect("act"))).WithPolicy(contract.Policy{RequiresApproval: true}))
	return contract.Namespace{Name: "svc", Tools: []*contract.Tool{note, act}}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// batch is how many runs are contested at once: a batch's runs are paused
// together, then every replica acts on each of them at once (the work is
// mostly waiting for the database, so this keeps the test short on a
// loaded machine). Run k of a batch belongs to runtime name slot<k>, so an
// expiry meant for it ends no other run.
const batch = 10

// replica is one host: its own store (pool) and QuickJS runtime, and a
// handle per runtime name slot0…slot9.
type replica struct {
	store   store.Store
	handles []*durable.Handle
	driver  *quickjs.Driver
}

func newReplica(ctx context.Context, dsn, schema string) (*replica, error) {
	st, err := postgres.Open(ctx, dsn, postgres.Options{Schema: schema, MaxConns: 4})
	if err != nil {
		return nil, err
	}
	if _, err := postgres.Pool(st).Exec(ctx, "CREATE TABLE IF NOT EXISTS test_effects (execution_id text NOT NULL, kind text NOT NULL)"); err != nil {
		st.Close()
		return nil, err
	}
	d := quickjs.New(quickjs.Options{Timeout: 30 * time.Second})
	rt, err := client.NewRuntime(ctx, d)
	if err != nil {
		st.Close()
		return nil, err
	}
	r := &replica{store: st, driver: d}
	for k := range batch {
		ct, err := contract.NewNamespaced(effectsConnector(postgres.Pool(st)))
		if err != nil {
			r.close()
			return nil, err
		}
		h, err := durable.New(st, rt, ct,
			durable.Options{Name: fmt.Sprintf("slot%d", k), MaxExecutions: 1 << 20, PauseSettle: 2 * time.Millisecond})
		if err != nil {
			r.close()
			return nil, err
		}
		r.handles = append(r.handles, h)
	}
	return r, nil
}

func (r *replica) close() {
	_ = r.driver.Close()
	_ = r.store.Close()
}

// The actions replicas race with on one paused run.
const (
	actApprove = "approve"
	actReject  = "reject"
	actExpire  = "expire"
)

// result is what one replica's action returned.
type result struct {
	Action  string `json:"action"`
	ID      string `json:"id"`
	Won     bool   `json:"won"`              // approve: not refused as not paused; reject: true; expire: the run was among the IDs
	Output  string `json:"output,omitempty"` // approve: the output's status
	Error   string `json:"error,omitempty"`  // an error other than "not paused"
	Refused bool   `json:"refused"`          // approve: ErrNotPaused
}

// contested is a paused run: its runtime slot, ID and the seq of the
// action awaiting approval.
type contested struct {
	Slot int
	ID   string
	Seq  uint64
}

// act runs one action on the run c.
func (r *replica) act(ctx context.Context, action string, c contested) result {
	res := result{Action: action, ID: c.ID}
	h := r.handles[c.Slot]
	switch action {
	case actApprove:
		out, err := h.Approve(ctx, c.ID)
		switch {
		case errors.Is(err, durable.ErrNotPaused):
			res.Refused = true
		case err != nil:
			res.Error = err.Error()
		default:
			res.Won, res.Output = true, string(out.Status)
		}
	case actReject:
		ok, err := h.Reject(ctx, c.ID, c.Seq)
		res.Won = ok
		if err != nil {
			res.Error = err.Error()
		}
	case actExpire:
		ids, err := h.ExpirePaused(ctx, time.Millisecond)
		if err != nil {
			res.Error = err.Error()
		}
		for _, x := range ids {
			res.Won = res.Won || x == c.ID
		}
	}
	return res
}

// pauseBatch starts n runs of program at once, run k on replica
// reps[(first+k) % len(reps)] in runtime slot<k>, and returns them once all
// are paused at the approval of svc.act, a few milliseconds in the past (so
// that an expiry with a 1 ms age finds them).
func pauseBatch(t testing.TB, reps []*replica, n, first int) []contested {
	t.Helper()
	runs := make([]contested, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for k := range n {
		r := reps[(first+k)%len(reps)]
		wg.Go(func() {
			out, err := r.handles[k].Execute(context.Background(), program)
			if err == nil && (out.Status != codetool.StatusPaused || len(out.Pending) != 1) {
				err = fmt.Errorf("Execute answered %+v, want paused at svc.act", out)
			}
			if errs[k] = err; err == nil {
				runs[k] = contested{Slot: k, ID: out.ExecutionID, Seq: out.Pending[0].Seq}
			}
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatalf("Execute: %v", err)
		}
	}
	time.Sleep(3 * time.Millisecond)
	return runs
}

// race has every replica act on every run of the batch at once, replica i
// on run k as actions[k][i], and returns the results by run.
func race(ctx context.Context, runs []contested, actions [][]string, do func(i, k int) result) [][]result {
	results := make([][]result, len(runs))
	start := make(chan struct{})
	var wg sync.WaitGroup
	for k := range runs {
		results[k] = make([]result, len(actions[k]))
		for i := range actions[k] {
			wg.Go(func() {
				<-start
				results[k][i] = do(i, k)
			})
		}
	}
	close(start)
	wg.Wait()
	return results
}

// checkRun checks the invariants of one contested run: the write without
// approval applied exactly once; the approved action applied exactly once
// when its entry is applied and never otherwise; nothing applied after a
// reject or an expiry; at most one approval won; the run ended.
func checkRun(t testing.TB, st store.Store, c contested, results []result) {
	t.Helper()
	ctx := context.Background()
	id, seq := c.ID, c.Seq
	e, err := st.Execution(ctx, fmt.Sprintf("slot%d", c.Slot), id)
	if err != nil {
		t.Fatal(err)
	}
	counts := map[string]int{}
	rows, err := postgres.Pool(st).Query(ctx, "SELECT kind, count(*) FROM test_effects WHERE execution_id = $1 GROUP BY kind", id)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var kind string
		var n int
		if err := rows.Scan(&kind, &n); err != nil {
			t.Fatal(err)
		}
		counts[kind] = n
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	var entry *store.Entry
	for i := range e.Log {
		if e.Log[i].Seq == seq {
			entry = &e.Log[i]
		}
	}
	fail := func(format string, args ...any) {
		t.Helper()
		b, _ := json.Marshal(results)
		t.Fatalf("run %s (status %s %q, act entry %+v, effects %v) after %s: %s", id, e.Status, e.Error, entry, counts, b, fmt.Sprintf(format, args...))
	}
	if entry == nil || entry.Method != "act" {
		fail("no act entry at seq %d", seq)
	}
	if !e.Status.Terminal() {
		fail("the run did not end")
	}
	if counts["note"] != 1 {
		fail("note applied %d times, want 1 (replays return the recorded result)", counts["note"])
	}
	switch entry.State {
	case store.EntryApplied:
		if counts["act"] != 1 {
			fail("the approved action was applied %d times, want exactly 1", counts["act"])
		}
	case store.EntryPending, store.EntryError:
		if counts["act"] != 0 {
			fail("the action was applied %d times while its entry is %s", counts["act"], entry.State)
		}
	default:
		fail("act entry in state %s", entry.State)
	}
	approvals := 0
	for _, r := range results {
		if r.Action == actApprove && r.Won {
			approvals++
		}
	}
	for _, r := range results {
		if r.Error != "" {
			fail("%s failed: %s", r.Action, r.Error)
		}
		switch {
		case r.Action == actApprove && r.Won:
			if r.Output == string(codetool.StatusCompleted) && (e.Status != store.StatusCompleted || entry.State != store.EntryApplied) {
				fail("an approval answered completed")
			}
		case r.Action == actReject && r.Won:
			if entry.State != store.EntryError || entry.Error != "rejected by user" || counts["act"] != 0 {
				fail("a reject won but the action was not refused")
			}
		case r.Action == actExpire && r.Won && e.Status == store.StatusRejected:
			// Expired awaiting approval: never approved (a concurrent
			// reject may still mark the entry rejected).
			if counts["act"] != 0 || entry.State == store.EntryApplied || approvals > 0 {
				fail("the run expired awaiting approval but the action was applied")
			}
		}
	}
	if approvals > 1 {
		fail("%d approvals replayed the run, want at most 1", approvals)
	}
	if e.Status == store.StatusCompleted && (approvals != 1 || entry.State != store.EntryApplied) {
		fail("completed without exactly one approval applying the action")
	}
}

// plan picks each replica's action: mostly approvals (so that approvals
// race each other), with rejects and expiries among them.
func plan(rng *rand.Rand, n int) []string {
	actions := make([]string, n)
	for i := range actions {
		switch x := rng.IntN(8); {
		case x < 4:
			actions[i] = actApprove
		case x < 6:
			actions[i] = actReject
		default:
			actions[i] = actExpire
		}
	}
	return actions
}

// scaled is n iterations, a tenth of them under the race detector (its
// CPU cost is several times higher; scripts/test runs the full count
// without it as well) and a tenth with -short. The replica tests make 1,000
// in all (400 + 400 + 200).
func scaled(n int) int {
	if raceEnabled {
		n /= 10
	}
	if testing.Short() {
		n /= 10
	}
	return n
}

// Replicas in one process (separate handles, pools and QuickJS runtimes)
// approve, reject and expire the same paused runs at once.
func TestReplicas(t *testing.T) {
	for _, tc := range []struct {
		replicas, iterations int
	}{{2, 400}, {8, 400}} {
		t.Run(fmt.Sprintf("%d", tc.replicas), func(t *testing.T) {
			iterations := scaled(tc.iterations)
			schema := newSchema(t)
			dsn := testDSN(t)
			ctx := context.Background()
			reps := make([]*replica, tc.replicas)
			for i := range reps {
				r, err := newReplica(ctx, dsn, schema)
				if err != nil {
					t.Fatalf("replica %d: %v", i, err)
				}
				t.Cleanup(r.close)
				reps[i] = r
			}
			rng := rand.New(rand.NewPCG(uint64(tc.replicas), 11))
			for done := 0; done < iterations; done += batch {
				runs := pauseBatch(t, reps, min(batch, iterations-done), done)
				actions := make([][]string, len(runs))
				for k := range runs {
					actions[k] = plan(rng, len(reps))
				}
				results := race(ctx, runs, actions, func(i, k int) result { return reps[i].act(ctx, actions[k][i], runs[k]) })
				for k, c := range runs {
					checkRun(t, reps[0].store, c, results[k])
				}
			}
		})
	}
}

// childReplica is a replica process: it reads "ACTION SLOT ID SEQ" lines,
// acts on each at once (a goroutine per line) and answers each with the
// result as a JSON line, in the order they finish.
func childReplica(schema string) int {
	ctx := context.Background()
	r, err := newReplica(ctx, os.Getenv("CODEMODE_TEST_POSTGRES"), schema)
	if err != nil {
		fmt.Fprintln(os.Stderr, "replica:", err)
		return 1
	}
	defer r.close()
	in := bufio.NewScanner(os.Stdin)
	out := json.NewEncoder(os.Stdout)
	if err := out.Encode(result{Action: "ready"}); err != nil {
		return 1
	}
	var (
		mu sync.Mutex
		wg sync.WaitGroup
	)
	defer wg.Wait()
	for in.Scan() {
		var action string
		var c contested
		if _, err := fmt.Sscan(in.Text(), &action, &c.Slot, &c.ID, &c.Seq); err != nil || c.Slot < 0 || c.Slot >= batch {
			fmt.Fprintln(os.Stderr, "replica: bad command:", in.Text())
			return 1
		}
		wg.Go(func() {
			res := r.act(ctx, action, c)
			mu.Lock()
			defer mu.Unlock()
			_ = out.Encode(res)
		})
	}
	return 0
}

type child struct {
	cmd *exec.Cmd
	in  io.WriteCloser
	out *json.Decoder
}

func startChild(t *testing.T, schema string) *child {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "-test.run=^$")
	cmd.Env = append(os.Environ(), "CODEMODE_PG_REPLICA="+schema)
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	c := &child{cmd: cmd, in: in, out: json.NewDecoder(out)}
	t.Cleanup(func() {
		_ = c.in.Close()
		if err := c.cmd.Wait(); err != nil {
			t.Errorf("replica process: %v", err)
		}
	})
	var ready result
	if err := c.out.Decode(&ready); err != nil || ready.Action != "ready" {
		t.Fatalf("replica process did not start: %+v, %v", ready, err)
	}
	return c
}

// Replicas in separate processes (this test binary re-executed), each with
// its own pool, race on the runs this process pauses; the effects ledger
// is a table all of them write.
func TestReplicaProcesses(t *testing.T) {
	iterations := scaled(200)
	schema := newSchema(t)
	ctx := context.Background()
	self, err := newReplica(ctx, testDSN(t), schema) // migrates first
	if err != nil {
		t.Fatal(err)
	}
	defer self.close()
	children := []*child{startChild(t, schema), startChild(t, schema)}
	rng := rand.New(rand.NewPCG(3, 11))
	for done := 0; done < iterations; done += batch {
		runs := pauseBatch(t, []*replica{self}, min(batch, iterations-done), 0)
		byID := map[string]int{}
		commands := make([][]byte, len(children))
		for k, c := range runs {
			byID[c.ID] = k
			for i, a := range plan(rng, len(children)) {
				commands[i] = fmt.Appendf(commands[i], "%s %d %s %d\n", a, c.Slot, c.ID, c.Seq)
			}
		}
		for i, c := range children { // one write each: the children start on the batch together
			if _, err := c.in.Write(commands[i]); err != nil {
				t.Fatal(err)
			}
		}
		results := make([][]result, len(runs))
		for i, c := range children {
			for range runs {
				var res result
				if err := c.out.Decode(&res); err != nil {
					t.Fatalf("replica process %d: %v", i, err)
				}
				k, ok := byID[res.ID]
				if !ok {
					t.Fatalf("replica process %d answered for run %q", i, res.ID)
				}
				results[k] = append(results[k], res)
			}
		}
		for k, c := range runs {
			checkRun(t, self.store, c, results[k])
		}
	}
}
