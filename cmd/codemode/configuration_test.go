package main

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/codemode-go/codemode/client"
	"github.com/codemode-go/codemode/codetool"
	"github.com/codemode-go/codemode/contract"
	"github.com/codemode-go/codemode/drivers/quickjs"
	"github.com/codemode-go/codemode/durable"
	"github.com/codemode-go/codemode/durable/store"
)

// TestApproveRefusesAnotherConnectorConfiguration: a run paused before an
// OpenAPI PUT names, in its pause's hint, the exact connector flags it ran
// with (--header-env by its variable, never the secret). An approve with
// another base URL, or without the header, is refused naming the
// difference: nothing is sent, the run stays paused and its approval is
// not used, so that the approve with the run's flags then completes it.
// On a SQLite file and on PostgreSQL.
func TestApproveRefusesAnotherConnectorConfiguration(t *testing.T) {
	spec, err := filepath.Abs("../../.tools/node_modules/@readme/oas-examples/3.0/json/petstore.json")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(spec); err != nil {
		t.Skip(err)
	}
	journals := map[string]func(t *testing.T) string{
		"sqlite":   func(t *testing.T) string { return filepath.Join(t.TempDir(), "journal.db") },
		"postgres": postgresJournal,
	}
	for name, journal := range journals {
		t.Run(name, func(t *testing.T) { testApproveRefusesAnotherConfiguration(t, spec, journal(t)) })
	}
}

func testApproveRefusesAnotherConfiguration(t *testing.T, spec, journal string) {
	api, seen := petAPI(t)
	other, otherSeen := petAPI(t)
	t.Setenv("PETSTORE_TOKEN", "Bearer secret-token-from-env")
	base := []string{"--journal", journal, "--openapi", "petstore=" + spec}
	flags := append(base[:len(base):len(base)], "--base-url", "petstore="+api.URL+"/v3", "--header-env", "petstore=Authorization:PETSTORE_TOKEN")
	prog := writeFile(t, "prog.ts", `const pets = await petstore.findPetsByStatus({ status: ["available"] });
await petstore.updatePet({ body: { id: 7, name: "Max", photoUrls: [] } });
pets.map((p) => p.name).join("+")
`)
	code, stdout, stderr := runCLI(t, append(append([]string{"run"}, flags...), prog)...)
	id := regexp.MustCompile(`exec_[0-9a-f_]+`).FindString(stdout)
	if code != exitPaused || id == "" {
		t.Fatalf("run: exit %d\nstdout: %s\nstderr: %s", code, stdout, stderr)
	}
	hint := "--base-url petstore=" + api.URL + "/v3 --header-env petstore=Authorization:PETSTORE_TOKEN " + id + " --shown "
	if !strings.Contains(stdout, hint) || strings.Contains(stdout, "secret-token") {
		t.Fatalf("the pause's hint does not repeat the run's connector flags (%s), or shows the secret:\n%s", hint, stdout)
	}
	// pending and show, given no connector flags, give those the run
	// recorded, with placeholders for what the journal keeps as digests.
	recorded := " --openapi petstore=SPEC --base-url petstore=" + api.URL + "/v3 --header-env petstore=Authorization:ENVVAR " + id + " --shown "
	for _, args := range [][]string{{"pending", "--journal", journal}, {"show", "--journal", journal, id}} {
		_, out, _ := runCLI(t, args...)
		if !strings.Contains(out, recorded) || strings.Contains(out, "--tools FILE") || !strings.Contains(out, "SPEC: the OpenAPI document of that namespace") {
			t.Fatalf("%s does not give the run's recorded flags (%s):\n%s", args[0], recorded, out)
		}
	}
	tests := []struct {
		name  string
		flags []string
		want  string
	}{
		{"another base URL", append(base[:len(base):len(base)], "--base-url", "petstore="+other.URL+"/v3", "--header-env", "petstore=Authorization:PETSTORE_TOKEN"),
			`petstore base URL "` + api.URL + `/v3", now "` + other.URL + `/v3"`},
		{"the header missing", append(base[:len(base):len(base)], "--base-url", "petstore="+api.URL+"/v3"),
			`petstore header names "Authorization", now "none"`},
	}
	for _, tt := range tests {
		code, stdout, stderr := runCLI(t, append(append([]string{"approve"}, tt.flags...), id)...)
		if code == exitCompleted || !strings.Contains(stderr, tt.want) || !strings.Contains(stderr, "stays paused") {
			t.Fatalf("%s: approve: exit %d, want a refusal naming %s\nstdout: %s\nstderr: %s", tt.name, code, tt.want, stdout, stderr)
		}
		if got := append(seen(), otherSeen()...); len(got) != 1 {
			t.Fatalf("%s: after the refused approval the APIs saw %q, want the one GET", tt.name, got)
		}
		_, show, _ := runCLI(t, "show", "--json", "--journal", journal, id)
		var e struct {
			Status string
			Passes int
		}
		if err := json.Unmarshal([]byte(show), &e); err != nil || e.Status != "paused" || e.Passes != 1 {
			t.Fatalf("%s: after the refused approval: %v %s", tt.name, err, show)
		}
	}
	code, stdout, stderr = runCLI(t, append(append([]string{"approve"}, flags...), id)...)
	if code != exitCompleted || !strings.Contains(stdout, "Rex+Tom") {
		t.Fatalf("approve with the run's flags: exit %d\nstdout: %s\nstderr: %s", code, stdout, stderr)
	}
	if got := seen(); len(got) != 2 || !strings.HasPrefix(got[1], "PUT /v3/pet Bearer secret-token-from-env") {
		t.Fatalf("the API saw %q", got)
	}
}

// TestResumeAndRollbackRefuseAnotherConnectorConfiguration: resume of a
// run whose host died, and rollback (also of one uncertain action), with a
// tools file other than the run's are refused naming the difference:
// nothing runs or is reverted, and the run is left as it was; with the
// run's tools file they go ahead. On a SQLite file and on PostgreSQL.
func TestResumeAndRollbackRefuseAnotherConnectorConfiguration(t *testing.T) {
	journals := map[string]func(t *testing.T) string{
		"sqlite":   func(t *testing.T) string { return filepath.Join(t.TempDir(), "journal.db") },
		"postgres": postgresJournal,
	}
	for name, journal := range journals {
		t.Run(name, func(t *testing.T) {
			f := newJournalFixture(t)
			f.journal = journal(t)
			testResumeAndRollbackRefuseAnotherConfiguration(t, f)
		})
	}
}

func testResumeAndRollbackRefuseAnotherConfiguration(t *testing.T, f *journalFixture) {
	raw, err := os.ReadFile(f.tools)
	if err != nil {
		t.Fatal(err)
	}
	otherTools := filepath.Join(f.dir, "other-tools.json")
	if err := os.WriteFile(otherTools, []byte(strings.ReplaceAll(string(raw), "revert.log", "other-revert.log")), 0o644); err != nil {
		t.Fatal(err)
	}
	refused := func(what string, args ...string) {
		t.Helper()
		code, stdout, stderr := f.cli(t, args...)
		if code == 0 || !strings.Contains(stderr, `tools file "sha256:`) || !strings.Contains(stderr, "configuration") {
			t.Fatalf("%s with another tools file: exit %d, want a refusal naming the tools file\nstdout: %s\nstderr: %s", what, code, stdout, stderr)
		}
		if got := append(f.lines(t, "revert.log"), f.lines(t, "other-revert.log")...); len(got) != 0 {
			t.Fatalf("%s with another tools file: reverts ran: %q", what, got)
		}
	}
	// Resume: a run whose approver died after the approval.
	paused := f.output(t, exitPaused, "run", "--tools", f.tools, "--json", f.program)
	ctx := context.Background()
	st, err := durable.OpenStore(ctx, f.journal)
	if err != nil {
		t.Fatal(err)
	}
	dead, approved := time.Now().Add(-time.Minute).UnixMilli(), uint64(2)
	if ok, err := st.TransitionExecution(ctx, "default", paused.ExecutionID, []store.Status{store.StatusPaused}, store.StatusRunning,
		store.ExecutionUpdate{At: dead, Approved: &approved, Lease: &store.Lease{Owner: "dead-host", Until: dead}}); err != nil || !ok {
		t.Fatalf("orphaning: %v, %v", ok, err)
	}
	st.Close()
	refused("resume", "resume", "--tools", otherTools, paused.ExecutionID)
	if len(f.lines(t, "create.log")) != 0 || f.record(t, paused.ExecutionID).Status != store.StatusRunning {
		t.Fatalf("after the refused resume: create ran %q, status %s", f.lines(t, "create.log"), f.record(t, paused.ExecutionID).Status)
	}
	if done := f.output(t, 0, "resume", "--tools", f.tools, "--json", paused.ExecutionID); done.Status != codetool.StatusCompleted || len(f.lines(t, "create.log")) != 1 {
		t.Fatalf("resume with the run's tools: %+v, create ran %q", done, f.lines(t, "create.log"))
	}
	// Rollback of the completed run.
	refused("rollback", "rollback", "--tools", otherTools, paused.ExecutionID)
	if e := f.record(t, paused.ExecutionID); e.Status != store.StatusCompleted {
		t.Fatalf("after the refused rollback: %s", e.Status)
	}
	if code, stdout, stderr := f.cli(t, "rollback", "--tools", f.tools, paused.ExecutionID); code != 0 || len(f.lines(t, "revert.log")) != 1 {
		t.Fatalf("rollback with the run's tools: exit %d, reverts %q\nstdout: %s\nstderr: %s", code, f.lines(t, "revert.log"), stdout, stderr)
	}
}

// TestOrphanWatcherSkipsAnotherConfiguration: journal serve, whose
// watcher resumes the runs whose host died, leaves alone one whose tools
// file differs from its own and says so in its log, naming the run and
// the difference, instead of failing it; the run stays orphaned for a
// server configured as it was.
func TestOrphanWatcherSkipsAnotherConfiguration(t *testing.T) {
	f := newJournalFixture(t)
	paused := f.output(t, exitPaused, "run", "--tools", f.tools, "--json", f.program)
	ctx := context.Background()
	st, err := durable.OpenStore(ctx, f.journal)
	if err != nil {
		t.Fatal(err)
	}
	dead, approved := time.Now().Add(-time.Minute).UnixMilli(), uint64(2)
	if ok, err := st.TransitionExecution(ctx, "default", paused.ExecutionID, []store.Status{store.StatusPaused}, store.StatusRunning,
		store.ExecutionUpdate{At: dead, Approved: &approved, Lease: &store.Lease{Owner: "dead-host", Until: dead}}); err != nil || !ok {
		t.Fatalf("orphaning: %v, %v", ok, err)
	}
	st.Close()
	raw, err := os.ReadFile(f.tools)
	if err != nil {
		t.Fatal(err)
	}
	otherTools := filepath.Join(f.dir, "other-tools.json")
	if err := os.WriteFile(otherTools, []byte(strings.ReplaceAll(string(raw), "revert.log", "other-revert.log")), 0o644); err != nil {
		t.Fatal(err)
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(self, "-codemode-cli", "journal", "serve", "--journal", f.journal, "--tools", otherTools, "--listen", "127.0.0.1:0")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	stop := time.AfterFunc(2*time.Minute, func() { _ = cmd.Process.Kill() }) // ends the scan below if the line never comes
	defer stop.Stop()
	lines := bufio.NewScanner(stderr)
	var log []string
	for lines.Scan() {
		log = append(log, lines.Text())
		if strings.Contains(lines.Text(), "not resuming an orphaned execution") {
			break
		}
	}
	last := strings.Join(log[max(len(log)-1, 0):], "")
	if !strings.Contains(last, "not resuming an orphaned execution") || !strings.Contains(last, paused.ExecutionID) || !strings.Contains(last, `tools file`) {
		t.Fatalf("journal serve's log does not say it leaves the orphan alone, naming it and the difference:\n%s", strings.Join(log, "\n"))
	}
	if e := f.record(t, paused.ExecutionID); e.Status != store.StatusRunning || e.LeaseOwner != "dead-host" || len(f.lines(t, "create.log")) != 0 {
		t.Fatalf("after the watcher looked: %s, lease %q, create ran %q", e.Status, e.LeaseOwner, f.lines(t, "create.log"))
	}
}

// TestApproveRefusesAGoProgramsRun: a run a Go program started with a tool
// of its own (durable.Options.Configuration left nil) pauses for approval.
// The command line, given a tools file with a tool of the same name, is
// refused, saying to approve it from that program: the file's command does
// not run and the run stays paused, its approval unused. The program's own
// handle then approves it, and its tool runs once.
func TestApproveRefusesAGoProgramsRun(t *testing.T) {
	ctx := context.Background()
	journal := filepath.Join(t.TempDir(), "journal.db")
	var transfers []string
	transfer, err := contract.NewTool("transfer", "Moves money.", func(ctx context.Context, in struct {
		From string `json:"from"`
	}) (string, error) {
		transfers = append(transfers, in.From)
		return "done", nil
	})
	if err == nil {
		transfer, err = transfer.WithPolicy(contract.Policy{RequiresApproval: true})
	}
	if err != nil {
		t.Fatal(err)
	}
	c, err := contract.New(transfer)
	if err != nil {
		t.Fatal(err)
	}
	st, err := durable.OpenStore(ctx, journal)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	rt, err := client.NewRuntime(ctx, quickjs.New(quickjs.Options{InProcess: true}))
	if err != nil {
		t.Fatal(err)
	}
	defer rt.Close()
	h, err := durable.New(st, rt, c, durable.Options{Name: "bank"})
	if err != nil {
		t.Fatal(err)
	}
	paused, err := h.Execute(ctx, `await codemode.transfer({ from: "a" })`)
	if err != nil || paused.Status != codetool.StatusPaused {
		t.Fatalf("%+v %v", paused, err)
	}
	for _, cmd := range []string{"pending", "show"} {
		_, stdout, _ := runCLI(t, cmd, "--journal", journal, "--name", "bank", paused.ExecutionID)
		if !strings.Contains(stdout, "a Go program with tools of its own started this run: approve it there") || strings.Contains(stdout, "--tools FILE") || strings.Contains(stdout, "codemode approve") ||
			!strings.Contains(stdout, "; the command line refuses to approve it, as its tools would be others under the same names\n") {
			t.Errorf("%s offers the command line's approval of a Go program's run, or not the program's, or breaks off:\n%s", cmd, stdout)
		}
	}
	// pending without --name says where the runs are, as executions does.
	if _, stdout, _ := runCLI(t, "pending", "--journal", journal); !strings.Contains(stdout, `no actions await approval under the runtime name "default"; the journal has runs under: bank (give --name bank)`) {
		t.Errorf("pending without --name:\n%s", stdout)
	}
	// Without tools, each command that would need them says at once that
	// the Go program must act, instead of asking for tools.
	for _, tc := range []struct{ name, verb, seq string }{
		{"approve", "approve it", ""}, {"resume", "resume it", ""}, {"happened", "answer it", "1"}, {"rollback", "roll it back", ""},
	} {
		args := []string{tc.name, "--journal", journal, "--name", "bank", paused.ExecutionID}
		if tc.seq != "" {
			args = append(args, tc.seq)
		}
		code, _, stderr := runCLI(t, args...)
		name, verb := tc.name, tc.verb
		want := "codemode: " + name + ": execution " + paused.ExecutionID + " was started by a Go program with tools of its own (durable.New without Options.Configuration): " +
			verb + " from that program (its Handle's Approve, ApproveShown, Resolve, Resume or Rollback); the command line refuses, as tools given here would be others under the same names\n"
		if code != exitError || stderr != want {
			t.Errorf("%s without tools: exit %d, stderr %q\nwant exit %d, %q", name, code, stderr, exitError, want)
		}
	}
	ran := filepath.Join(t.TempDir(), "other.log")
	other := writeFile(t, "other.json", `{"tools": [{"name": "transfer", "description": "Another transfer.",
  "inputSchema": {"type": "object"}, "outputSchema": {}, "command": ["sh", "-c", "cat >> `+ran+`; echo '\"other\"'"]}]}`)
	code, stdout, stderr := runCLI(t, "approve", "--journal", journal, "--name", "bank", "--tools", other, paused.ExecutionID)
	if code == exitCompleted || !strings.Contains(stderr, " was started by a Go program with tools of its own") || strings.Contains(stderr, "started with started") ||
		!strings.Contains(stderr, "it stays paused: continue it from the Go program that started it") {
		t.Fatalf("approve from the command line: exit %d, want a refusal naming the Go program\nstdout: %s\nstderr: %s", code, stdout, stderr)
	}
	if _, err := os.Stat(ran); !os.IsNotExist(err) {
		t.Fatalf("the tools file's command ran: %v", err)
	}
	if e, err := h.Execution(ctx, paused.ExecutionID); err != nil || e.Status != store.StatusPaused || e.Passes != 1 {
		t.Fatalf("after the refused approval: %+v %v", e, err)
	}
	done, err := h.Approve(ctx, paused.ExecutionID)
	if err != nil || done.Status != codetool.StatusCompleted || len(transfers) != 1 {
		t.Fatalf("approve from the program: %+v %v, transfers %q", done, err, transfers)
	}
	// Rejected from the command line, a run whose earlier action ran says
	// that its program rolls back, not codemode rollback.
	paused, err = h.Execute(ctx, `await codemode.transfer({ from: "b" }); await codemode.transfer({ from: "c" })`)
	if err == nil && paused.Status == codetool.StatusPaused {
		paused, err = h.Approve(ctx, paused.ExecutionID)
	}
	if err != nil || paused.Status != codetool.StatusPaused {
		t.Fatalf("%+v %v", paused, err)
	}
	code, stdout, stderr = runCLI(t, "reject", "--journal", journal, "--name", "bank", paused.ExecutionID, "2")
	want := "rejected action 2; execution " + paused.ExecutionID + " is rejected (1 earlier action(s) stay applied: the Go program that started it can roll back those whose tool has a revert (durable.Handle.Rollback))\n"
	if code != 0 || stdout != want {
		t.Fatalf("reject: exit %d\n%q\nwant %q\nstderr: %s", code, stdout, want, stderr)
	}
}

// TestHintsForAnOrphan: an orphaned run's hint continues it with the
// journal flags and the tools its configuration names, or, for a Go
// program's run, from that program; a rejected run says that nothing needs
// undoing when no action ran or none of those that ran has a revert, and
// suggests codemode rollback only when one has (or the run did not record
// which tools have one).
func TestHintsForAnOrphan(t *testing.T) {
	// rejected is a run rejected after the actions applied, of tools on
	// namespace, ran.
	rejected := func(conf map[string]string, namespace string, applied ...string) *store.Execution {
		e := &store.Execution{ID: "exec_1", Status: store.StatusRejected, Configuration: conf}
		for i, method := range applied {
			e.Log = append(e.Log, store.Entry{Seq: uint64(i + 1), Connector: namespace, Method: method, State: store.EntryApplied})
		}
		e.Log = append(e.Log, store.Entry{Seq: uint64(len(applied) + 1), Connector: namespace, Method: "send", State: store.EntryError})
		return e
	}
	orphan := func(conf map[string]string) *store.Execution {
		return &store.Execution{ID: "exec_1", Status: store.StatusRunning, LeaseUntil: 1, Configuration: conf}
	}
	tests := []struct {
		name string
		got  string
		want string
	}{
		{"a Go program's run", detail(orphan(durable.GoProgramConfiguration()), " --name godur"), "orphaned: its host died (resume it from the Go program that started it (durable.Handle.Resume))"},
		{"a run over OpenAPI", detail(orphan(map[string]string{"items document": "sha256:00", "items base URL": "http://h/v1", "items header names": "none"}), " --name n"),
			"orphaned: its host died (continue it: codemode resume --name n --openapi items=SPEC --base-url items=http://h/v1 exec_1)"},
		{"a run without a configuration", detail(orphan(nil), ""), "orphaned: its host died (continue it: codemode resume --tools FILE exec_1)"},
		{"rejected with nothing run", afterReject(&store.Execution{ID: "exec_1", Log: []store.Entry{{Seq: 1, State: store.EntryError}}}, ""), "no earlier action ran: nothing needs undoing"},
		{"rejected after an action of a tools file, its reverts not recorded", afterReject(&store.Execution{ID: "exec_1", Configuration: map[string]string{"tools file": "sha256:00"},
			Log: []store.Entry{{Seq: 1, State: store.EntryApplied}, {Seq: 2, State: store.EntryError}}}, " --name n"),
			"1 earlier action(s) stay applied: codemode rollback --name n --tools FILE exec_1 reverts those whose tool has a revert"},
		{"rejected after an action whose tool has no revert", afterReject(rejected(map[string]string{"tools file": "sha256:00", "tools with a revert": "codemode.create"}, "codemode", "list"), " --name n"),
			"1 earlier action(s) stay applied, none with a revert: there is nothing to roll back"},
		{"rejected after actions over OpenAPI, which have no revert", afterReject(rejected(map[string]string{"items document": "sha256:00", "items base URL": "http://h/v1", "items header names": "none", "tools with a revert": "none"}, "items", "list", "create"), ""),
			"2 earlier action(s) stay applied, none with a revert: there is nothing to roll back"},
		{"rejected after an action whose tool has a revert", afterReject(rejected(map[string]string{"tools file": "sha256:00", "tools with a revert": "codemode.create, codemode.send"}, "codemode", "list", "create"), " --name n"),
			"2 earlier action(s) stay applied, 1 with a revert: codemode rollback --name n --tools FILE exec_1 reverts those"},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("%s:\n%q\nwant\n%q", tt.name, tt.got, tt.want)
		}
	}
}
