package durable_test

import (
	"regexp"
	"strings"
	"testing"

	"github.com/codemode-go/codemode/client"
	"github.com/codemode-go/codemode/codetool"
)

// A replay must take each seq as the first pass did. The steps recorded as
// applied are not run again: their function's calls become step_skip
// calls and their end a step_end without a token, which the journal
// checks against the seqs those took. Each program below knows it is
// replaying (a step's function runs only on the first pass) and makes a
// step's replay calls take the seq of the approved create_issue (an
// adversarial review's programs: the approval then completed the run
// without ever running the approved action), or a connector call take a
// seq a replayed step takes. Each must end in a divergence, with the
// approved action and every later call not run.
func TestReplayedStepsKeepTheirSeqs(t *testing.T) {
	onEveryDriver(t, testReplayedStepsKeepTheirSeqs)
}

func testReplayedStepsKeepTheirSeqs(t *testing.T, ex client.Executor) {
	for _, tt := range []struct{ name, code, divergence string }{
		{"a call on the seq of a replayed step's end", `let first = false;
await codemode.step("probe", async () => { first = true; return 1; });
const p = codemode.step("s", async () => 2);
if (!first) await github.add_label({ title: "at the gap" });
await p;
if (first) await github.create_issue({ title: "approved" });
await github.add_label({ title: "after the divergence" });
1`, `replay divergence at step `}, // 4 (the call on the step's end) or 5 (the step's end on the approved action): both are in flight at once
		{"a forged skip count", `let first = false;
await codemode.step("probe", async () => { first = true; return 1; });
if (!first) {
  Object.defineProperty(Object.prototype, "then", { configurable: true, get() {
    if (Object.prototype.hasOwnProperty.call(this, "found") && this.found === true) { this.skip = 1; delete Object.prototype.then; }
    return undefined; } });
}
await codemode.step("s", async () => 2);
if (first) await github.create_issue({ title: "approved" });
await github.add_label({ title: "after the divergence" });
1`, `replay divergence at step 4: expected the end of codemode.step("s"), replayed, got a call of codemode.step("s")'s function, replayed`},
		{"a step's end on an approved action", `let first = false;
await codemode.step("probe", async () => { first = true; return 1; });
const p = codemode.step("s", async () => 2);
if (!first) await codemode.search("labels");
await p;
if (first) await github.create_issue({ title: "approved" });
await github.add_label({ title: "after the divergence" });
1`, `replay divergence at step 5: expected github.create_issue({"title":"approved"}), got the end of codemode.step("s"), replayed`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			h, svc, _ := fixtureOn(t, ex)
			out := execute(t, h, tt.code)
			wantStatus(t, out, codetool.StatusPaused)
			done := approve(t, h, out.ExecutionID)
			e := record(t, h, out.ExecutionID)
			if done.Status != codetool.StatusError || !strings.Contains(done.Error, tt.divergence) {
				t.Fatalf("the approval gave %+v (journal %s), want an error saying %q", done, states(e), tt.divergence)
			}
			if n, m := svc.count("create_issue"), svc.count("add_label"); n != 0 || m != 0 {
				t.Fatalf("create_issue ran %d times and add_label %d after the divergence; journal %s", n, m, states(e))
			}
		})
	}
}

// Steps run concurrently (Promise.all) take each other's seqs on the
// first pass: their replay is a divergence that says to await steps one at
// a time, and the approved action does not run.
func TestConcurrentStepsDivergeWithAHint(t *testing.T) {
	h, svc, _ := fixture(t)
	out := execute(t, h, `await Promise.all([codemode.step("a", async () => 1), codemode.step("b", async () => 2)]);
await github.create_issue({ title: "x" }); 1`)
	wantStatus(t, out, codetool.StatusPaused)
	done := approve(t, h, out.ExecutionID)
	// Which seq the divergence is found at depends on how the two steps'
	// journal writes interleaved on the first pass (the execution's record
	// is written with the first of them): 2 or 3.
	if done.Status != codetool.StatusError || !regexp.MustCompile(`replay divergence at step [23]\b`).MatchString(done.Error) || !strings.Contains(done.Error, "await steps one at a time") {
		t.Fatalf("approval gave %+v, want a divergence at step 2 or 3 with the hint", done)
	}
	if n := svc.count("create_issue"); n != 0 {
		t.Fatalf("create_issue ran %d times", n)
	}
}

// A step's function does not run on replay, so the random values it drew
// must still be used up: the program's later Math.random and crypto values
// are those of the first pass (a helper found that the first value after
// the step repeated the step's, so a replay diverged, or completed with an
// idempotency key used twice).
func TestRandomValuesAfterAStepReplay(t *testing.T) {
	onEveryDriver(t, testRandomValuesAfterAStepReplay)
}

func testRandomValuesAfterAStepReplay(t *testing.T, ex client.Executor) {
	for _, tt := range []struct{ name, code string }{
		{"Math.random before the pause", `const id = await codemode.step("id", async () => Math.random());
const other = Math.random();
await github.add_label({ title: "id " + id });
await github.create_issue({ title: "other " + other });
[id === other]`},
		{"randomUUID before the pause", `const a = await codemode.step("uuid", async () => crypto.randomUUID());
const b = crypto.randomUUID();
await github.create_issue({ title: "uuid " + b });
[a === b]`},
		{"both after the pause", `const key = await codemode.step("key", async () => crypto.randomUUID() + (crypto.getRandomValues(new Uint8Array(65536)).length + crypto.getRandomValues(new Uint8Array(40000)).length));
const r = await codemode.step("r", async () => Math.random() + Math.random());
await github.create_issue({ title: "key " + key });
const key2 = crypto.randomUUID();
const r2 = Math.random() + Math.random();
await github.add_label({ title: "key2 " + key2 });
[key.slice(0, 36) === key2, r === r2]`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			h, svc, _ := fixtureOn(t, ex)
			out := execute(t, h, tt.code)
			wantStatus(t, out, codetool.StatusPaused)
			done := approve(t, h, out.ExecutionID)
			wantStatus(t, done, codetool.StatusCompleted)
			if strings.Contains(string(done.Value), "true") {
				t.Fatalf("a value after the step repeated the step's: %s", done.Value)
			}
			if n := svc.count("create_issue"); n != 1 {
				t.Fatalf("create_issue ran %d times", n)
			}
		})
	}
}
