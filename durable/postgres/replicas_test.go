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
	"github.com/codemode-go/codemode/drivers/quickjs"
	"github.com/codemode-go/codemode/durable"
	"github.com/codemode-go/codemode/durable/postgres"
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
func effectsConnector(pool *pgxpool.Pool) durable.Connector {
	effect := func(kind string) func(ctx context.Context, in keyInput) (effectOutput, error) {
		return func(ctx context.Context, in keyInput) (effectOutput, error) {
			if _, err := pool.Exec(ctx, "INSERT INTO test_effects (execution_id, kind) VALUES ($1, $2)", durable.ExecutionIDFrom(ctx), kind); err != nil {
				return effectOutput{}, fmt.Errorf("recording the effect: %w", err)
			}
			return effectOutput{Key: in.Key, Done: true}, nil
		}
	}
	note := must(durable.FuncTool("note", "A write without approval.", effect("note")))
	act := must(durable.FuncTool("act", "A write that needs approval.", effect("act")))
	act.RequiresApproval = true
	return durable.Connector{Name: "svc", Tools: []durable.ConnectorTool{note, act}}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// replica is one host: its own store (pool), QuickJS runtime and handle.
type replica struct {
	store  *postgres.Store
	handle *durable.Handle
	driver *quickjs.Driver
}

func newReplica(ctx context.Context, dsn, schema string) (*replica, error) {
	st, err := postgres.Open(ctx, dsn, postgres.Options{Schema: schema, MaxConns: 4})
	if err != nil {
		return nil, err
	}
	if _, err := st.Pool().Exec(ctx, "CREATE TABLE IF NOT EXISTS test_effects (execution_id text NOT NULL, kind text NOT NULL)"); err != nil {
		st.Close()
		return nil, err
	}
	d := quickjs.New(quickjs.Options{Timeout: 30 * time.Second})
	rt, err := client.NewRuntime(ctx, d)
	if err != nil {
		st.Close()
		return nil, err
	}
	h, err := durable.New(st, rt, []durable.Connector{effectsConnector(st.Pool())}, durable.Options{MaxExecutions: 1 << 20, PauseSettle: 2 * time.Millisecond})
	if err != nil {
		st.Close()
		_ = d.Close()
		return nil, err
	}
	return &replica{store: st, handle: h, driver: d}, nil
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
	Won     bool   `json:"won"`              // approve: not refused as not paused; reject: true; expire: the run was among the IDs
	Output  string `json:"output,omitempty"` // approve: the output's status
	Error   string `json:"error,omitempty"`  // an error other than "not paused"
	Refused bool   `json:"refused"`          // approve: ErrNotPaused
}

// act runs one action on the run id (seq is the action awaiting approval).
func (r *replica) act(ctx context.Context, action, id string, seq uint64) result {
	res := result{Action: action}
	switch action {
	case actApprove:
		out, err := r.handle.Approve(ctx, id)
		switch {
		case errors.Is(err, durable.ErrNotPaused):
			res.Refused = true
		case err != nil:
			res.Error = err.Error()
		default:
			res.Won, res.Output = true, string(out.Status)
		}
	case actReject:
		ok, err := r.handle.Reject(ctx, id, seq)
		res.Won = ok
		if err != nil {
			res.Error = err.Error()
		}
	case actExpire:
		ids, err := r.handle.ExpirePaused(ctx, time.Millisecond)
		if err != nil {
			res.Error = err.Error()
		}
		for _, x := range ids {
			res.Won = res.Won || x == id
		}
	}
	return res
}

// pause starts a run of program on r and returns its ID once it is paused
// at the approval of svc.act, a few milliseconds in the past (so that an
// expiry with a 1 ms age finds it).
func pause(t testing.TB, r *replica) (string, uint64) {
	t.Helper()
	out, err := r.handle.Execute(context.Background(), program)
	if err != nil || out.Status != durable.OutputPaused || len(out.Pending) != 1 {
		t.Fatalf("Execute: %+v, %v", out, err)
	}
	time.Sleep(3 * time.Millisecond)
	return out.ExecutionID, out.Pending[0].Seq
}

// checkRun checks the invariants of one contested run: the write without
// approval applied exactly once; the approved action applied exactly once
// when its entry is applied and never otherwise; nothing applied after a
// reject or an expiry; at most one approval won; the run ended.
func checkRun(t testing.TB, st *postgres.Store, id string, seq uint64, results []result) {
	t.Helper()
	ctx := context.Background()
	e, err := st.Execution(ctx, durable.DefaultName, id)
	if err != nil {
		t.Fatal(err)
	}
	counts := map[string]int{}
	rows, err := st.Pool().Query(ctx, "SELECT kind, count(*) FROM test_effects WHERE execution_id = $1 GROUP BY kind", id)
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
	var entry *durable.ToolLogEntry
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
	case durable.EntryApplied:
		if counts["act"] != 1 {
			fail("the approved action was applied %d times, want exactly 1", counts["act"])
		}
	case durable.EntryPending, durable.EntryError:
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
			if r.Output == string(durable.OutputCompleted) && (e.Status != durable.StatusCompleted || entry.State != durable.EntryApplied) {
				fail("an approval answered completed")
			}
		case r.Action == actReject && r.Won:
			if entry.State != durable.EntryError || entry.Error != "rejected by user" || counts["act"] != 0 {
				fail("a reject won but the action was not refused")
			}
		case r.Action == actExpire && r.Won && e.Status == durable.StatusRejected:
			// Expired awaiting approval: never approved (a concurrent
			// reject may still mark the entry rejected).
			if counts["act"] != 0 || entry.State == durable.EntryApplied || approvals > 0 {
				fail("the run expired awaiting approval but the action was applied")
			}
		}
	}
	if approvals > 1 {
		fail("%d approvals replayed the run, want at most 1", approvals)
	}
	if e.Status == durable.StatusCompleted && (approvals != 1 || entry.State != durable.EntryApplied) {
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

// scaled is n iterations, a quarter of them under the race detector and a
// tenth with -short. The replica tests make 1,000 in all (400 + 400 + 200).
func scaled(n int) int {
	if raceEnabled {
		n /= 4
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
			for it := range iterations {
				id, seq := pause(t, reps[it%len(reps)])
				actions := plan(rng, len(reps))
				results := make([]result, len(reps))
				start := make(chan struct{})
				var wg sync.WaitGroup
				for i, r := range reps {
					wg.Go(func() {
						<-start
						results[i] = r.act(ctx, actions[i], id, seq)
					})
				}
				close(start)
				wg.Wait()
				checkRun(t, reps[0].store, id, seq, results)
			}
		})
	}
}

// childReplica is a replica process: it reads "ACTION ID SEQ" lines and
// answers each with the result as a JSON line.
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
	for in.Scan() {
		var action, id string
		var seq uint64
		if _, err := fmt.Sscan(in.Text(), &action, &id, &seq); err != nil {
			fmt.Fprintln(os.Stderr, "replica: bad command:", in.Text())
			return 1
		}
		if err := out.Encode(r.act(ctx, action, id, seq)); err != nil {
			return 1
		}
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
	for range iterations {
		id, seq := pause(t, self)
		actions := plan(rng, len(children))
		for i, c := range children {
			if _, err := fmt.Fprintf(c.in, "%s %s %d\n", actions[i], id, seq); err != nil {
				t.Fatal(err)
			}
		}
		results := make([]result, len(children))
		for i, c := range children {
			if err := c.out.Decode(&results[i]); err != nil {
				t.Fatalf("replica process %d: %v", i, err)
			}
		}
		checkRun(t, self.store, id, seq, results)
	}
}
