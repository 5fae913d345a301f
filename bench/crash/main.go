// Command crash is the fault-injection harness of durable runs: it kills
// `codemode run`, `approve` and `resume` processes (SIGKILL) at random
// moments and at the marked points of a pass, on a SQLite or a PostgreSQL
// journal, recovers each run only through the documented commands (show,
// approve, resume, happened), and counts the tools' real effects through
// their own log, not through the journal.
//
//	go run ./bench/crash -backend sqlite -trials 200
//	go run ./bench/crash -backend postgres -dsn postgres://… -trials 200
//
// Each trial runs one program that reads, writes twice without approval,
// makes one write that needs approval, and writes once more; every write
// appends its key to effects.log in one write(2). The first `run` and up to
// two later commands of the trial are killed, each at a random moment or at
// a point named by the durable package's fault-injection hook
// (CODEMODE_CRASH_AT: pause, replay, action, recorded; see docs/durable.md).
// Meanwhile a healthy run of the same journal is live (its tool sleeps): the
// harness tries to resume and to expire it, which must be refused, and it
// must complete. A person's part is played from the effects log: an
// uncertain action whose key is in the log "happened", one whose key is not
// runs again. At the end it prints, per backend: trials, runs completed
// through resume without expire, writes run twice, writes lost, live runs
// touched, uncertain actions asked, kills.
//
// The program exits 1 when a write ran twice, was lost, or a live run was
// touched. TestCrashTrials (crash_test.go) runs a few trials in CI.
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

func main() {
	backend := flag.String("backend", "sqlite", "the journal: sqlite or postgres")
	dsn := flag.String("dsn", os.Getenv("CODEMODE_TEST_POSTGRES"), "the PostgreSQL URL (-backend postgres); a fresh schema is used")
	trials := flag.Int("trials", 20, "how many trials")
	seed := flag.Uint64("seed", uint64(time.Now().UnixNano()), "the random seed (printed)")
	bin := flag.String("codemode", "", "the codemode binary (default: built from ./cmd/codemode)")
	verbose := flag.Bool("v", false, "print each trial")
	flag.Parse()
	out := io.Discard
	if *verbose {
		out = os.Stderr
	}
	t, err := runTrials(config{backend: *backend, dsn: *dsn, trials: *trials, seed: *seed, bin: *bin, log: out})
	if err != nil {
		fmt.Fprintln(os.Stderr, "crash:", err)
		os.Exit(2)
	}
	fmt.Println(t)
	if !t.ok() {
		os.Exit(1)
	}
}

// config is one harness run.
type config struct {
	backend, dsn string
	trials       int
	seed         uint64
	bin          string    // "": build ./cmd/codemode
	log          io.Writer // one line per trial
}

// tally counts what the trials did.
type tally struct {
	backend   string
	seed      uint64
	trials    int
	completed int // completed through resume and approvals, without expire
	twice     int // writes whose key is in the effects log more than once
	lost      int // writes of a completed run missing from the log
	ended     int // runs that ended otherwise (error, rejected)
	live      int // live runs that recovery touched (or that did not complete)
	uncertain int // uncertain actions put to the person
	kills     int
	killed    int // trials in which at least one command was killed
	failures  []string
}

func (t *tally) ok() bool { return t.twice == 0 && t.lost == 0 && t.live == 0 }

func (t *tally) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "backend %s, seed %d: %d trials (%d with a kill), %d kills\n", t.backend, t.seed, t.trials, t.killed, t.kills)
	fmt.Fprintf(&b, "  completed through resume without expire: %d (%.1f%%)\n", t.completed, 100*float64(t.completed)/float64(max(t.trials, 1)))
	fmt.Fprintf(&b, "  writes run twice: %d; writes lost: %d; live runs touched: %d; runs ended otherwise: %d\n", t.twice, t.lost, t.live, t.ended)
	fmt.Fprintf(&b, "  uncertain actions put to the person: %d", t.uncertain)
	for _, f := range t.failures {
		fmt.Fprintf(&b, "\n  failure: %s", f)
	}
	return b.String()
}

// runTrials sets up a journal and a tools file and runs the trials.
func runTrials(c config) (*tally, error) {
	dir, err := os.MkdirTemp("", "codemode-crash-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	if c.bin == "" {
		c.bin = filepath.Join(dir, "codemode")
		build := exec.Command("go", "build", "-o", c.bin, "./cmd/codemode")
		build.Dir = moduleRoot()
		if out, err := build.CombinedOutput(); err != nil {
			return nil, fmt.Errorf("building codemode: %v\n%s", err, out)
		}
	}
	h := &harness{bin: c.bin, dir: dir, rng: rand.New(rand.NewPCG(c.seed, c.seed^0x9e3779b97f4a7c15)), log: c.log,
		effects: filepath.Join(dir, "effects.log"), tools: filepath.Join(dir, "tools.json")}
	switch c.backend {
	case "sqlite":
		h.journal = filepath.Join(dir, "journal.db")
	case "postgres":
		if c.dsn == "" {
			return nil, fmt.Errorf("-backend postgres needs -dsn or $CODEMODE_TEST_POSTGRES")
		}
		sep := "?"
		if strings.Contains(c.dsn, "?") {
			sep = "&"
		}
		h.journal = fmt.Sprintf("%s%sschema=crash_%d", c.dsn, sep, time.Now().UnixNano())
	default:
		return nil, fmt.Errorf("unknown -backend %q: sqlite or postgres", c.backend)
	}
	if err := h.writeTools(); err != nil {
		return nil, err
	}
	t := &tally{backend: c.backend, seed: c.seed}
	for i := range c.trials {
		h.trial(i, t)
	}
	return t, nil
}

// moduleRoot is the repository's root: the folder above bench/crash, from
// the working directory go test or go run gives.
func moduleRoot() string {
	wd, _ := os.Getwd()
	for d := wd; d != filepath.Dir(d); d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return d
		}
	}
	return wd
}

// harness is the state the trials share.
type harness struct {
	bin, dir, journal, tools, effects string
	rng                               *rand.Rand
	log                               io.Writer
}

// lease is the runs' lease: short, so that an orphan is resumable soon.
const lease = time.Second

func (h *harness) writeTools() error {
	// One printf per call: one write(2) with O_APPEND, whole or not at all.
	write := []string{"sh", "-c", `x=$(cat); printf '%s\n' "$x" >> "$EFFECTS"; echo '{"ok":true}'`}
	in := json.RawMessage(`{"type":"object","properties":{"key":{"type":"string"}},"required":["key"]}`)
	out := json.RawMessage(`{"type":"object","properties":{"ok":{"type":"boolean"}},"required":["ok"]}`)
	env := map[string]string{"EFFECTS": h.effects}
	tools := map[string]any{"tools": []map[string]any{
		{"name": "read", "description": "Reads (idempotent: runs again after a crash).", "inputSchema": in, "outputSchema": out,
			"command": []string{"sh", "-c", `cat > /dev/null; echo '{"ok":true}'`}, "idempotent": true},
		{"name": "note", "description": "Writes without approval.", "inputSchema": in, "outputSchema": out, "command": write, "env": env},
		{"name": "act", "description": "Writes after approval.", "inputSchema": in, "outputSchema": out, "command": write, "env": env, "requiresApproval": true},
		{"name": "slow", "description": "Writes after a while.", "inputSchema": in, "outputSchema": out,
			"command": []string{"sh", "-c", `sleep 2; x=$(cat); printf '%s\n' "$x" >> "$EFFECTS"; echo '{"ok":true}'`}, "env": env},
	}}
	raw, err := json.Marshal(tools)
	if err != nil {
		return err
	}
	return os.WriteFile(h.tools, raw, 0o644)
}

// writes are the keys of a trial's program's writes, in order.
var writes = []string{"n1", "n2", "a1", "n3"}

func program(token string) string {
	return fmt.Sprintf(`await codemode.read({ key: "%[1]s/r1" });
await codemode.note({ key: "%[1]s/n1" });
await codemode.note({ key: "%[1]s/n2" });
await codemode.act({ key: "%[1]s/a1" });
await codemode.note({ key: "%[1]s/n3" });
return "done";
`, token)
}

// killPoints are the marked points a kill may take (CODEMODE_CRASH_AT).
var killPoints = []string{"pause", "replay", "action", "action:2", "action:3", "recorded", "recorded:2", "recorded:3"}

// cmd runs codemode with args; kill, when true, kills it at a random
// moment or a marked point. It returns the exit code (-1: killed) and
// stdout.
func (h *harness) cmd(t *tally, kill bool, args ...string) (int, []byte) {
	c := exec.Command(h.bin, args...)
	c.Env = append(os.Environ(), "CODEMODE_JOURNAL="+h.journal)
	var out, errOut bytes.Buffer
	c.Stdout, c.Stderr = &out, &errOut
	how := ""
	if kill {
		if h.rng.IntN(2) == 0 {
			p := killPoints[h.rng.IntN(len(killPoints))]
			c.Env = append(c.Env, "CODEMODE_CRASH_AT="+p)
			how = "at " + p
		} else {
			how = "random"
		}
	}
	if err := c.Start(); err != nil {
		return -2, nil
	}
	if how == "random" {
		// A pass takes about a second here (the engine's start, the tools'
		// processes): most random kills land inside one.
		d := time.Duration(h.rng.Int64N(int64(800 * time.Millisecond)))
		timer := time.AfterFunc(d, func() { _ = c.Process.Kill() })
		defer timer.Stop()
		how = "after " + d.Round(time.Millisecond).String()
	}
	err := c.Wait()
	code := c.ProcessState.ExitCode()
	if ws := c.ProcessState.String(); strings.Contains(ws, "killed") {
		t.kills++
		fmt.Fprintf(h.log, "    killed %s %s\n", args[0], how)
		code = -1
		time.Sleep(100 * time.Millisecond) // a tool command it started may still be writing
	} else if err != nil && code > 1 && code != 3 {
		fmt.Fprintf(h.log, "    %s exit %d: %s\n", args[0], code, strings.TrimSpace(errOut.String()))
	}
	return code, out.Bytes()
}

// execution is what the harness reads of `show --json`.
type execution struct {
	ID         string `json:"executionId"`
	Code       string `json:"code"`
	Status     string `json:"status"`
	Error      string `json:"error"`
	LeaseUntil int64  `json:"leaseUntil"`
	Log        []struct {
		Seq       uint64          `json:"seq"`
		Method    string          `json:"method"`
		Args      json.RawMessage `json:"args"`
		State     string          `json:"state"`
		Uncertain bool            `json:"uncertain"`
	} `json:"log"`
}

// find returns the execution whose code contains key, or nil.
func (h *harness) find(t *tally, key string) *execution {
	_, out := h.cmd(t, false, "executions", "--json", "--limit", "0")
	var list []execution
	_ = json.Unmarshal(out, &list)
	for i := range list {
		if strings.Contains(list[i].Code, key) {
			return &list[i]
		}
	}
	return nil
}

func (h *harness) show(t *tally, id string) *execution {
	_, out := h.cmd(t, false, "show", "--json", id)
	var e execution
	if json.Unmarshal(out, &e) != nil {
		return nil
	}
	return &e
}

// effects counts the keys in the effects log.
func (h *harness) effectCounts() map[string]int {
	b, _ := os.ReadFile(h.effects)
	counts := map[string]int{}
	for _, l := range strings.Split(string(b), "\n") {
		var in struct {
			Key string `json:"key"`
		}
		if json.Unmarshal([]byte(l), &in) == nil && in.Key != "" {
			counts[in.Key]++
		}
	}
	return counts
}

func (h *harness) writeProgram(name, code string) string {
	path := filepath.Join(h.dir, name)
	_ = os.WriteFile(path, []byte(code), 0o644)
	return path
}
