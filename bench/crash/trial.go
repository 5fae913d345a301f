package main

import (
	"encoding/json"
	"fmt"
	"strconv"
	"time"
)

// trial runs one program to its end through kills and recovery, with a
// live run beside it, and adds what happened to t.
func (h *harness) trial(i int, t *tally) {
	t.trials++
	token := fmt.Sprintf("t%d-%d", i, time.Now().UnixNano())
	fmt.Fprintf(h.log, "trial %d (%s)\n", i, token)
	live := h.startLive(t, token)
	lease := []string{"--lease", lease.String(), "--tools", h.tools}
	prog := h.writeProgram(token+".ts", program(token))

	// The run is killed, and up to two later commands; until a kill has
	// happened (a random moment may come after the command ended), every
	// command is a candidate.
	extra := h.rng.IntN(3)
	code, _ := h.cmd(t, true, append([]string{"run", "--json"}, append(lease, prog)...)...)
	killed := code == -1
	e := h.find(t, token+"/r1")
	for e == nil { // killed before the run was recorded: the agent runs it again
		h.cmd(t, false, append([]string{"run", "--json"}, append(lease, prog)...)...)
		e = h.find(t, token+"/r1")
	}
	id := e.ID
	touched := false
	for step := 0; step < 40; step++ {
		e = h.show(t, id)
		if e == nil {
			t.failures = append(t.failures, fmt.Sprintf("%s: show failed", id))
			break
		}
		if e.Status != "running" && e.Status != "paused" {
			break
		}
		if !touched && live.id != "" {
			touched = true
			h.tryLive(t, live)
		}
		kill := !killed || (extra > 0 && h.rng.IntN(2) == 0)
		if killed && kill {
			extra--
		}
		code := 0
		switch e.Status {
		case "running":
			if wait := time.Until(time.UnixMilli(e.LeaseUntil)); wait > 0 {
				time.Sleep(wait + 20*time.Millisecond)
			}
			code, _ = h.cmd(t, kill, append([]string{"resume", "--json"}, append(lease, id)...)...)
		case "paused":
			code = h.answer(t, e, lease, kill)
		}
		killed = killed || code == -1
	}
	if killed {
		t.killed++
	}
	h.score(t, id, token, e)
	h.endLive(t, live)
}

// answer plays the person's part for a paused run: an uncertain action is
// answered from the effects log (it happened when its key is there), any
// other pause is approved.
func (h *harness) answer(t *tally, e *execution, lease []string, kill bool) int {
	counts := h.effectCounts()
	for _, l := range e.Log {
		if l.State != "pending" || !l.Uncertain {
			continue
		}
		t.uncertain++
		var in struct {
			Key string `json:"key"`
		}
		_ = json.Unmarshal(l.Args, &in)
		if counts[in.Key] > 0 {
			fmt.Fprintf(h.log, "    uncertain %s: it happened\n", in.Key)
			code, _ := h.cmd(t, kill, append([]string{"happened", "--json", "--result", `{"ok":true}`}, append(lease, e.ID, strconv.FormatUint(l.Seq, 10))...)...)
			return code
		}
		fmt.Fprintf(h.log, "    uncertain %s: run it again\n", in.Key)
		code, _ := h.cmd(t, kill, append([]string{"approve", "--json"}, append(lease, e.ID)...)...)
		return code
	}
	code, _ := h.cmd(t, kill, append([]string{"approve", "--json"}, append(lease, e.ID)...)...)
	return code
}

// score checks the trial's effects against its run's end.
func (h *harness) score(t *tally, id, token string, e *execution) {
	counts := h.effectCounts()
	for k, n := range counts {
		if n > 1 && len(k) > len(token) && k[:len(token)] == token {
			t.twice++
			t.failures = append(t.failures, fmt.Sprintf("%s: %s ran %d times", id, k, n))
		}
	}
	if e == nil || e.Status != "completed" {
		t.ended++
		status := "unknown"
		if e != nil {
			status = e.Status + " " + e.Error
		}
		t.failures = append(t.failures, fmt.Sprintf("%s did not complete: %s", id, status))
		fmt.Fprintf(h.log, "  %s ended %s\n", id, status)
		return
	}
	t.completed++
	for _, w := range writes {
		if counts[token+"/"+w] == 0 {
			t.lost++
			t.failures = append(t.failures, fmt.Sprintf("%s completed but %s never ran", id, w))
		}
	}
	fmt.Fprintf(h.log, "  %s completed\n", id)
}

// liveRun is a healthy run in progress beside the trial's.
type liveRun struct {
	id, key string
	done    chan int
}

// startLive starts a run whose tool takes two seconds and waits until it
// is recorded.
func (h *harness) startLive(t *tally, token string) liveRun {
	key := token + "/live"
	prog := h.writeProgram(token+"-live.ts", fmt.Sprintf(`return await codemode.slow({ key: %q });`, key))
	l := liveRun{key: key, done: make(chan int, 1)}
	go func() {
		code, _ := h.cmd(&tally{}, false, "run", "--json", "--lease", lease.String(), "--tools", h.tools, prog)
		l.done <- code
	}()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if e := h.find(&tally{}, key); e != nil {
			l.id = e.ID
			break
		}
	}
	return l
}

// tryLive tries to recover the live run, which must be refused.
func (h *harness) tryLive(t *tally, l liveRun) {
	if e := h.show(t, l.id); e == nil || e.Status != "running" {
		return // it ended already: nothing to try
	}
	if code, _ := h.cmd(t, false, "resume", "--tools", h.tools, l.id); code == 0 {
		t.live++
		t.failures = append(t.failures, l.id+": resume took a live run")
	}
	if code, _ := h.cmd(t, false, "expire", l.id); code == 0 {
		t.live++
		t.failures = append(t.failures, l.id+": expire ended a live run")
	}
}

// endLive waits for the live run and checks that it completed, its write
// once.
func (h *harness) endLive(t *tally, l liveRun) {
	code := <-l.done
	if l.id == "" {
		return
	}
	e := h.show(t, l.id)
	if code != 0 || e == nil || e.Status != "completed" || h.effectCounts()[l.key] != 1 {
		t.live++
		status := "unknown"
		if e != nil {
			status = e.Status + " " + e.Error
		}
		t.failures = append(t.failures, fmt.Sprintf("live run %s: exit %d, %s, write ran %d time(s)", l.id, code, status, h.effectCounts()[l.key]))
	}
}
