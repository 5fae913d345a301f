package quickjs

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/codemode-go/codemode/internal/wire"
	"github.com/tetratelabs/wazero/sys"
)

// event is something an execution waits for: a tool result, a timer, or the
// host's cancel.
type event struct {
	seq    uint64
	ok     bool
	output []byte
	err    *wire.Error
	// held marks an output the host has not checked yet, release the
	// verdict that it passed (wire 1.6).
	held, release bool
	timer         int32
	cancel        bool
}

// execution is one program run on its own engine, driven by one goroutine.
type execution struct {
	id   uint64
	done chan struct{}

	// queue holds events not yet taken; wake has a value while it is
	// non-empty. Posting never blocks, so a busy program cannot stall the
	// runner's reader and with it every other execution.
	mu    sync.Mutex
	queue []event
	wake  chan struct{}

	// base is the execution's context; stop cancels it, with errStopped
	// when the host cancels: a running engine stops at its next interrupt
	// poll (host.go).
	base context.Context
	stop context.CancelCauseFunc

	// out holds the frames this execution sends that are not written yet:
	// what one drain of the outbox sends (output, tool calls, the result)
	// goes in one write, and the host's reader wakes once for it. Only the
	// execution's goroutine touches it.
	out []byte
}

// cancel stops the execution for the host, from any goroutine.
func (ex *execution) cancel() { ex.stop(errStopped) }

// post queues an event for the execution, from any goroutine.
func (ex *execution) post(ev event) {
	ex.mu.Lock()
	ex.queue = append(ex.queue, ev)
	ex.mu.Unlock()
	select {
	case ex.wake <- struct{}{}:
	default:
	}
}

// take returns the next queued event, if any.
func (ex *execution) take() (event, bool) {
	ex.mu.Lock()
	defer ex.mu.Unlock()
	if len(ex.queue) == 0 {
		return event{}, false
	}
	ev := ex.queue[0]
	ex.queue = ex.queue[1:]
	if len(ex.queue) > 0 {
		select {
		case ex.wake <- struct{}{}:
		default:
		}
	}
	return ev, true
}

type finishJSON struct {
	Outcome string          `json:"outcome"`
	Content []wire.Content  `json:"content"`
	Error   *wire.Error     `json:"error"`
	Value   json.RawMessage `json:"value"`
	Clock   []float64       `json:"clock"`
}

// requestJSON is the structured parts of the runner's request
// (runner/src/quickjs.ts, request), each left out when empty; the parts
// every request has are prepare's arguments (requestArgs).
type requestJSON struct {
	HasInput   bool            `json:"hasInput,omitempty"`
	Input      json.RawMessage `json:"input,omitempty"`
	Namespaces []nsJSON        `json:"namespaces,omitempty"`
	// Clock is the execute message's clock values, for a replay.
	Clock []float64 `json:"clock,omitempty"`
	// Prefill is the execute message's prefilled results (wire 1.3): the
	// JSON text of each, by seq.
	Prefill map[uint64]string `json:"prefill,omitempty"`
	// Positions is the execute message's positions (wire 1.8), checked
	// by wire.Message.Check.
	Positions *positionsJSON `json:"positions,omitempty"`
}

// positionsJSON is wire.Positions as the runner's request holds it.
type positionsJSON struct {
	Points      []uint32 `json:"points"`
	DefaultName string   `json:"defaultName"`
}

// nsJSON is a namespace of the engine's request: its name, and the length
// of its tools' text (scopeNames) in UTF-16 code units.
type nsJSON struct {
	Name string `json:"name"`
	Size int    `json:"size"`
}

// requestArgs is the runner's request for one execution: the JSON text of
// its structured parts (requestJSON), "" when it has none, as most warm
// executions do (JSON.parse costs about 0.13 µs a character in QuickJS;
// the runner is then given null), and Math.random's seed. The filename and
// the limits are the execution's.
type requestArgs struct {
	parts string
	seed  [4]uint32
}

// jsLimit is a limit as a JavaScript integer: one past math.MaxInt32
// (2 GiB of UTF-16 code units, far past what a 16 MiB frame carries) is
// math.MaxInt32.
func jsLimit(n int) jsValue { return jsInt(int32(min(n, math.MaxInt32))) }

// maxToolInput is the largest tool input, in bytes, that fits a frame with
// room for the message's other fields.
const maxToolInput = wire.MaxFrameSize - 64<<10

// maxContentItems is the most content items a result holds, as the runner
// enforces it (maxContentItems in runner/src/core.ts): the host decodes each
// into a Go value of about 200 bytes.
const maxContentItems = 1 << 16

// maxTimerDelay is the largest timer delay the runner arms, in ms (2^31-1).
const maxTimerDelay = 1<<31 - 1

// outputNoticeRoom is how far past MaxOutput the runner's truncation notice
// may take an execution's output, in UTF-16 code units.
const outputNoticeRoom = 200

// errStopped marks an execution the host cancelled: it sends no result.
var errStopped = errors.New("quickjs: execution cancelled by the host")

// outboxError is an outbox entry the Go runner refused: malformed, forged
// or past a limit. It fails its execution alone, as an InternalError.
type outboxError struct{ what string }

func (e *outboxError) Error() string { return "the runner's outbox " + e.what }

func badOutbox(format string, args ...any) error {
	return &outboxError{what: fmt.Sprintf(format, args...)}
}

// limits are one execution's limits: the execute message's, capped by the
// driver's options.
type limits struct {
	timeout    time.Duration
	cpu        time.Duration // the CPU time limit (cputime.go); 0: none
	memory     uint64
	maxOutput  int
	maxContent int
	maxTimers  int
}

// capped returns requested when it is set and below limit, else limit.
func capped[T int | uint64 | time.Duration](requested, limit T) T {
	if requested > 0 && requested < limit {
		return requested
	}
	return limit
}

func limitsOf(msg *wire.Message, o Options) limits {
	l := limits{timeout: o.Timeout, memory: o.MemoryLimit, maxOutput: o.MaxOutput, maxContent: o.MaxContent, maxTimers: o.MaxTimers}
	if r := msg.Limits; r != nil {
		if r.TimeoutMs > 0 && r.TimeoutMs < uint64(o.Timeout/time.Millisecond) {
			l.timeout = time.Duration(r.TimeoutMs) * time.Millisecond
		}
		l.memory = capped(r.MemoryBytes, o.MemoryLimit)
		l.maxOutput = int(capped(r.MaxOutput, uint64(o.MaxOutput)))
		l.maxContent = int(capped(r.MaxContent, uint64(o.MaxContent)))
		l.maxTimers = int(capped(r.MaxTimers, uint64(o.MaxTimers)))
		l.cpu = time.Duration(min(r.CPUMs, math.MaxInt64/uint64(time.Millisecond))) * time.Millisecond
	}
	return l
}

// run drives one execution to its end and sends its execution-result
// message, or nothing when the host cancelled it. The engine is reset and
// pooled after the result is sent, off the caller's critical path.
func (s *server) run(ex *execution, msg *wire.Message, names *scopeNames) {
	defer ex.stop(nil)
	lim := limitsOf(msg, s.opts)
	ctx, cancel := context.WithTimeoutCause(ex.base, lim.timeout,
		fmt.Errorf("the execution deadline of %s was exceeded", lim.timeout))
	defer cancel()

	if s.slots != nil {
		select {
		case s.slots <- struct{}{}:
			defer func() { <-s.slots }()
		case <-ctx.Done():
			if errors.Is(context.Cause(ctx), errStopped) {
				s.end(ex, nil)
				return
			}
			s.end(ex, failure(ex.id, "TimeoutError", fmt.Sprintf("%v while waiting for an engine (all %d in use)", context.Cause(ctx), cap(s.slots))))
			return
		}
	}
	in, err := s.m.get(ctx)
	if err != nil {
		s.end(ex, failure(ex.id, "Error", fmt.Sprintf("starting an engine: %v", err)))
		return
	}
	s.procs.enter()
	defer s.procs.leave()
	ctx, engine := withEngineRun(ctx, s.procs)
	// The CPU time limit counts from here: not the wait for an engine.
	ctx, stopCPU := context.WithCancelCause(ctx)
	defer stopCPU(nil)
	site := &stopSite{in: in}
	ctx = withStopSite(ctx, site)
	st := &driveState{lim: lim, timers: map[int32]*time.Timer{}, names: names, cpu: newCPUMeter(lim.cpu, stopCPU), run: engine}
	st.prebuilt = s.prebuiltFor(in, msg, names)
	result, err := s.drive(ctx, in, ex, msg, st)
	st.cpu.end()
	if result != nil && result.Error != nil && result.Outcome == wire.OutcomeProgramFailed {
		result.Error.Stack = locateFailure(msg.Source, msg.Filename, result.Error)
	}
	for _, t := range st.timers {
		t.Stop()
	}
	var bad *outboxError
	switch {
	case ctx.Err() != nil && errors.Is(context.Cause(ctx), errStopped):
		s.m.discard(in)
		s.end(ex, nil)
	case ctx.Err() != nil:
		// The deadline passed, while the engine ran (it was stopped at an
		// interrupt poll) or while it waited; or the CPU time limit did,
		// while the engine ran.
		f := failure(ex.id, "TimeoutError", fmt.Sprintf("the program was stopped: %v", context.Cause(ctx)))
		f.CPULimit = errors.Is(context.Cause(ctx), errCPULimit)
		if stoppedInside(err) {
			f.Error.Stack = withoutRunnerFrames(site.stack) // where the program ran, read at the poll that stopped it
		} else {
			s.procs.busy() // waitingStack calls into the engine
			f.Error.Stack = waitingStack(in)
		}
		s.m.discard(in)
		s.end(ex, f)
	case errors.As(err, &bad):
		s.m.discard(in)
		s.end(ex, failure(ex.id, "InternalError", bad.Error()+"; the execution was stopped"))
	case err != nil && in.belowStackFloor():
		// The stack guard trapped (patch.go): C recursion got past
		// QuickJS's own check and its margin.
		s.m.discard(in)
		s.end(ex, failure(ex.id, "RangeError", fmt.Sprintf(
			"recursion too deep: the program exhausted the engine's C stack of %s; the engine was replaced", byteSize(stackSize))))
	case err != nil && in.outOfMemory():
		// The heap was exhausted where the runner could not report it (in
		// its own code, or while reading the outcome).
		s.m.discard(in)
		s.end(ex, failure(ex.id, "RangeError", fmt.Sprintf(
			"out of memory: the program exceeded the memory limit of %s; the engine was replaced", byteSize(lim.memory))))
	case err != nil:
		s.m.discard(in)
		s.end(ex, failure(ex.id, limitName(err), describeTrap(err, lim.memory)))
	default:
		s.end(ex, result)
		s.m.put(in)
	}
}

// driveState is what the Go runner tracks of one execution to check the
// engine's outbox against: nothing in it comes from the engine unchecked.
type driveState struct {
	lim    limits
	timers map[int32]*time.Timer // armed host timers by id
	seq    uint64                // the last tool call's seq
	output int                   // UTF-16 code units of output sent
	names  *scopeNames           // the namespaces, and the tools the execution may call
	run    *engineRun            // the engine's run, for its interrupt polls (nil in process)
	// prefill is the execution's prefilled results by seq (wire 1.3); a
	// call the runner answers from one is taken out.
	prefill map[uint64]string
	// cpu meters the execution's CPU time limit; nil without one.
	cpu *cpuMeter
	// prebuilt is the number of the execution's scope prebuilt into the
	// engine's snapshot (prebuild.go), or 0.
	prebuilt int32
}

// utf16Len is the length of s in UTF-16 code units, the unit of the limits.
func utf16Len(s string) int {
	n := 0
	for _, r := range s {
		n++
		if r >= 0x10000 {
			n++
		}
	}
	return n
}

// parseRandomUse reads a tool call's random-stream use, "draws,bytes".
func parseRandomUse(text string) (draws, bytes uint64, err error) {
	d, b, ok := strings.Cut(text, ",")
	draws, err1 := strconv.ParseUint(d, 10, 64)
	bytes, err2 := strconv.ParseUint(b, 10, 64)
	if !ok || err1 != nil || err2 != nil {
		return 0, 0, badOutbox("held a malformed random-stream use: %.40q", text)
	}
	return draws, bytes, nil
}

// parseClock reads the comma-separated clock values of an outbox entry.
func parseClock(text string) ([]float64, error) {
	if text == "" {
		return nil, nil
	}
	if n := strings.Count(text, ",") + 1; n > wire.MaxArrayElements {
		return nil, badOutbox("held %d clock values, more than a message carries (%d)", n, wire.MaxArrayElements)
	}
	parts := strings.Split(text, ",")
	out := make([]float64, len(parts))
	for i, p := range parts {
		v, err := strconv.ParseFloat(p, 64)
		if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, badOutbox("held a clock value %.40q that is not a finite number", p)
		}
		out[i] = v
	}
	return out, nil
}

// requestOf is the runner's request for msg, or the failure of a program
// whose input is not JSON.
func requestOf(ex *execution, msg *wire.Message, st *driveState) (requestArgs, *wire.Message, error) {
	var req requestArgs
	seed := msg.Seed
	if seed == nil {
		seed = make([]byte, wire.SeedSize)
		if _, err := rand.Read(seed); err != nil {
			return req, nil, fmt.Errorf("quickjs: seeding Math.random: %w", err)
		}
	}
	for i := range req.seed {
		req.seed[i] = binary.BigEndian.Uint32(seed[4*i:])
	}
	parts := requestJSON{HasInput: msg.HasInput, Clock: msg.Clock}
	if msg.HasInput {
		if !json.Valid(msg.Input) {
			return req, failure(ex.id, "TypeError", "program input is not valid JSON"), nil
		}
		parts.Input = msg.Input
	}
	if st.prebuilt == 0 {
		// A prebuilt scope has them.
		parts.Namespaces = st.names.namespaces
	}
	if len(msg.Prefill) > 0 {
		parts.Prefill = make(map[uint64]string, len(msg.Prefill))
		for _, p := range msg.Prefill {
			parts.Prefill[p.Seq] = string(p.Output)
		}
		st.prefill = parts.Prefill
	}
	if p := msg.Positions; p != nil {
		parts.Positions = &positionsJSON{Points: p.Points, DefaultName: p.DefaultName}
		if parts.Positions.Points == nil {
			parts.Positions.Points = []uint32{}
		}
	}
	if !parts.HasInput && len(parts.Namespaces) == 0 && len(parts.Clock) == 0 && parts.Prefill == nil && parts.Positions == nil {
		return req, nil, nil // no parts: no JSON to write, none for the runner to parse
	}
	text, err := json.Marshal(parts)
	if err != nil {
		return req, nil, err
	}
	req.parts = string(text)
	return req, nil, nil
}

// drive runs the execution msg starts in in: it hands the runner the
// request, then runs the engine's jobs, reads its outbox and delivers the
// host's answers and timers until the program ends, returning the result
// message (or the error that ended the instance).
func (s *server) drive(ctx context.Context, in *instance, ex *execution, msg *wire.Message, st *driveState) (*wire.Message, error) {
	lim := st.lim
	req, failed, err := requestOf(ex, msg, st)
	if failed != nil || err != nil {
		return failed, err
	}
	if _, err := in.invoke(ctx, in.x.setMemoryLimit, uint64(in.l.rt), lim.memory); err != nil {
		return nil, fmt.Errorf("quickjs: setting the memory limit: %w", err)
	}
	if err := s.start(ctx, in, msg, req, st); err != nil {
		return nil, err
	}
	for {
		if err := in.runJobs(ctx); err != nil {
			return nil, err
		}
		out, err := in.callRunner(ctx, fnDrain)
		if err != nil {
			return nil, err
		}
		text, err := in.goString(ctx, out)
		if err != nil {
			return nil, err
		}
		if err := in.freeValue(ctx, out); err != nil {
			return nil, err
		}
		waiting, res, err := s.readOutbox(ex, text, st)
		if res != nil && res.Error != nil && in.outOfMemory() && (isOutOfMemory(res.Error) || res.Error.Name == "SyntaxError") {
			// QuickJS could not even allocate its error ("null"), threw
			// its own "out of memory", or its parser, out of memory,
			// reported the allocation it could not make as a syntax
			// error ("invalid increment/decrement operand" for a valid
			// program of 800,000 "a++;"): name the limit.
			res.Error.Name = "RangeError"
			res.Error.Message = fmt.Sprintf("out of memory: the program exceeded the memory limit of %s", byteSize(st.lim.memory))
		}
		if err != nil || res != nil {
			return res, err
		}
		if !waiting {
			return failure(ex.id, "Error", "the program awaits a promise that nothing can settle: no tool call or timer is outstanding"), nil
		}
		s.flush(ex)
		ev, ok := ex.take()
		if !ok {
			if len(st.timers) > 0 {
				s.procs.busy() // a program waiting on its own timers (procs.busy)
			}
			st.cpu.pause()
			if ev, ok = s.await(ctx, ex); !ok {
				return nil, context.Cause(ctx)
			}
			st.cpu.resume()
			st.run.resumed()
		}
		if ev.cancel {
			return nil, errStopped
		}
		if ev.timer != 0 {
			if st.timers[ev.timer] == nil {
				continue // stopped after it fired
			}
			delete(st.timers, ev.timer)
		}
		if err := s.deliver(ctx, in, ev); err != nil {
			return nil, err
		}
	}
}

// await waits for ex's next event, counted as parked (server.waitsForHost);
// ok is false when ctx ended first.
func (s *server) await(ctx context.Context, ex *execution) (ev event, ok bool) {
	s.parked.Add(1)
	defer s.parked.Add(-1)
	s.procs.leave() // out of guest code while it waits
	defer s.procs.enter()
	s.procs.fit()
	for {
		select {
		case <-ex.wake:
			if ev, ok = ex.take(); ok {
				return ev, true
			}
		case <-ctx.Done():
			return event{}, false
		}
	}
}

// readOutbox checks and acts on one drain of the engine's outbox: it sends
// tool calls and output, arms and stops timers, and returns the result
// message when the outbox ends the execution. Any entry that is malformed,
// unknown, out of order or past a limit is an *outboxError.
func (s *server) readOutbox(ex *execution, text string, st *driveState) (waiting bool, res *wire.Message, err error) {
	sawWait := false
	for len(text) > 0 {
		line := text
		if i := strings.IndexByte(text, '\n'); i >= 0 {
			line, text = text[:i], text[i+1:]
		} else {
			text = ""
		}
		kind, rest, _ := strings.Cut(line, "\t")
		switch kind {
		case "c", "p":
			res, err = s.outboxCall(ex, kind == "p", rest, line, st)
		case "o":
			err = s.outboxOutput(ex, rest, st)
		case "t":
			err = st.armTimer(ex, rest, line)
		case "x":
			err = st.stopTimer(rest, line)
		case "d":
			res, err = finishMessage(ex.id, rest, st.lim)
		case "w":
			if rest != "0" && rest != "1" {
				return false, nil, badOutbox("held a malformed wait entry: %.100q", line)
			}
			waiting, sawWait = rest == "1", true
		default:
			return false, nil, badOutbox("held an unknown entry: %.100q", line)
		}
		if res != nil || err != nil {
			return false, res, err
		}
	}
	if !sawWait {
		return false, nil, badOutbox("ended without its wait entry")
	}
	return waiting, nil, nil
}

// outboxCall checks a tool call entry (prefilled: answered in the engine
// from the execute message's prefill) and sends it to the host; res ends
// the execution when the call cannot reach the host.
func (s *server) outboxCall(ex *execution, prefilled bool, rest, line string, st *driveState) (res *wire.Message, err error) {
	// seq, namespace, tool, clock values, random-stream use
	// ("draws,bytes"), input.
	f := strings.SplitN(rest, "\t", 6)
	if len(f) != 6 {
		return nil, badOutbox("held a malformed tool call: %.100q", line)
	}
	draws, bytesUsed, err := parseRandomUse(f[4])
	if err != nil {
		return nil, err
	}
	f = append(f[:4], f[5])
	seq, err := strconv.ParseUint(f[0], 10, 64)
	if err != nil || seq != st.seq+1 {
		return nil, badOutbox("held tool call seq %.20q where %d was due", f[0], st.seq+1)
	}
	st.seq = seq
	if !st.names.tools[f[1]+"\x00"+f[2]] {
		return nil, badOutbox("held a call of %.100q.%.100q, which the execution does not declare", f[1], f[2])
	}
	clock, err := parseClock(f[3])
	if err != nil {
		return nil, err
	}
	if len(f[4]) > maxToolInput {
		// The call cannot reach the host, whose next call would then
		// skip a seq, and a prefilled one was answered already
		// (an adversarial review kept a prefilled answer for a call
		// the host never checked): the execution ends here.
		return failure(ex.id, "RangeError", fmt.Sprintf(
			"the input of %s.%s is %d bytes; a tool call carries at most %d", f[1], f[2], len(f[4]), maxToolInput)), nil
	}
	if !json.Valid([]byte(f[4])) {
		return nil, badOutbox("held tool call %d with input that is not JSON", seq)
	}
	if prefilled {
		// Only a seq the execution's prefill holds, once.
		if _, ok := st.prefill[seq]; !ok {
			return nil, badOutbox("answered tool call %d from a prefilled result the execution does not have", seq)
		}
		delete(st.prefill, seq)
	}
	call := &wire.Message{Kind: wire.KindToolCall, Execution: ex.id, Seq: seq, Namespace: f[1], Tool: f[2], Input: []byte(f[4]), Clock: clock, Prefilled: prefilled,
		RandomDraws: draws, RandomBytes: bytesUsed}
	if err := s.queue(ex, call); errors.Is(err, wire.ErrFrameTooLarge) {
		// The input fits (checked above), so the clock values the
		// program read since its last call make the message too
		// large. Nothing was written; like an input too large, the
		// call cannot reach the host and the execution ends here.
		return failure(ex.id, "RangeError", fmt.Sprintf(
			"the call of %s.%s does not fit in a message with the %d clock values the program read since its previous call (Date.now, performance.now, new Date), which are kept for replay: %v",
			f[1], f[2], len(clock), err)), nil
	} else {
		s.sent(err)
	}
	return nil, nil
}

// outboxOutput checks a console output entry and sends it to the host.
func (s *server) outboxOutput(ex *execution, rest string, st *driveState) error {
	stream, quoted, _ := strings.Cut(rest, "\t")
	if stream != wire.StreamStdout && stream != wire.StreamStderr {
		return badOutbox("held output on stream %.40q, which is neither stdout nor stderr", stream)
	}
	var out string
	if err := json.Unmarshal([]byte(quoted), &out); err != nil {
		return badOutbox("held output that is not a JSON string: %v", err)
	}
	st.output += utf16Len(out)
	if st.output > st.lim.maxOutput+outputNoticeRoom {
		return badOutbox("held %d characters of output, past the limit of %d", st.output, st.lim.maxOutput)
	}
	s.sent(s.queue(ex, &wire.Message{Kind: wire.KindOutput, Execution: ex.id, Stream: stream, Text: out}))
	return nil
}

// armTimer checks a timer entry ("id\tms") and arms the timer.
func (st *driveState) armTimer(ex *execution, rest, line string) error {
	idText, msText, _ := strings.Cut(rest, "\t")
	id, err1 := strconv.ParseInt(idText, 10, 32)
	ms, err2 := strconv.ParseInt(msText, 10, 64)
	if err1 != nil || err2 != nil || id <= 0 || ms < 0 || ms > maxTimerDelay {
		return badOutbox("held a malformed timer: %.100q", line)
	}
	if st.timers[int32(id)] != nil {
		return badOutbox("armed timer %d twice", id)
	}
	if len(st.timers) >= st.lim.maxTimers {
		return badOutbox("armed more than %d timers, the execution's limit", st.lim.maxTimers)
	}
	tid := int32(id)
	st.timers[tid] = time.AfterFunc(time.Duration(ms)*time.Millisecond, func() {
		ex.post(event{timer: tid})
	})
	return nil
}

// stopTimer checks a timer stop entry and stops the timer.
func (st *driveState) stopTimer(rest, line string) error {
	id, err := strconv.ParseInt(rest, 10, 32)
	if err != nil || id <= 0 {
		return badOutbox("held a malformed timer stop: %.100q", line)
	}
	if t := st.timers[int32(id)]; t != nil {
		t.Stop()
		delete(st.timers, int32(id))
	}
	return nil
}

// finishMessage checks the runner's outcome entry and builds the
// execution-result message from it.
func finishMessage(id uint64, text string, lim limits) (*wire.Message, error) {
	var f finishJSON
	dec := json.NewDecoder(strings.NewReader(text))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil {
		return nil, badOutbox("held an outcome that does not decode: %v", err)
	}
	if dec.More() {
		return nil, badOutbox("held text after the outcome")
	}
	clock := f.Clock
	if len(clock) == 0 {
		clock = nil
	}
	for _, t := range clock {
		if math.IsNaN(t) || math.IsInf(t, 0) {
			return nil, badOutbox("held a clock value that is not finite")
		}
	}
	res := &wire.Message{Kind: wire.KindResult, Execution: id, Outcome: f.Outcome, Clock: clock}
	switch f.Outcome {
	case wire.OutcomeSuccess:
		if f.Error != nil {
			return nil, badOutbox("held a success that carries an error")
		}
		if len(f.Content) > maxContentItems {
			return nil, badOutbox("held %d content items, past the limit of %d", len(f.Content), maxContentItems)
		}
		size := 0
		for i, c := range f.Content {
			switch c.Type {
			case "text":
				size += utf16Len(c.Text)
			case "image":
				size += utf16Len(c.Data) + utf16Len(c.MimeType)
			default:
				return nil, badOutbox("held content item %d of type %.40q", i, c.Type)
			}
		}
		if f.Value != nil {
			if !json.Valid(f.Value) {
				return nil, badOutbox("held a value that is not JSON")
			}
			res.Value = []byte(f.Value)
			size += utf16Len(string(f.Value))
		}
		if size > lim.maxContent {
			return nil, badOutbox("held %d characters of content and value, past the limit of %d", size, lim.maxContent)
		}
		res.Content = f.Content
		if res.Content == nil {
			res.Content = []wire.Content{}
		}
	case wire.OutcomeProgramFailed:
		if f.Error == nil {
			return nil, badOutbox("held a failure without an error")
		}
		f.Error.Stack = withoutRunnerFrames(f.Error.Stack)
		if f.Error.Name == "InternalError" && f.Error.Message == "out of memory" {
			f.Error.Name = "RangeError"
			f.Error.Message = fmt.Sprintf("out of memory: the program exceeded the memory limit of %s", byteSize(lim.memory))
		}
		res.Error = f.Error
	default:
		return nil, badOutbox("held an outcome %.40q that is neither success nor program-failed", f.Outcome)
	}
	if err := res.Check(); err != nil {
		return nil, badOutbox("held an outcome the wire refuses: %v", err)
	}
	if p, err := wire.Marshal(res); err != nil || len(p) > wire.MaxFrameSize {
		msg := fmt.Sprintf("the result is %d bytes; a result carries at most %d (16 MiB)", len(p), wire.MaxFrameSize)
		if len(res.Clock) > 0 {
			msg += fmt.Sprintf(", including the %d clock values the program read (Date.now, performance.now, new Date), which are kept for replay", len(res.Clock))
		}
		return failure(id, "RangeError", msg), nil
	}
	return res, nil
}

// start evaluates the program as a fresh root module and hands the
// evaluation promise and module namespace to the runner.
func (s *server) start(ctx context.Context, in *instance, msg *wire.Message, req requestArgs, st *driveState) error {
	setupExc, err := s.prepare(ctx, in, msg, req, st)
	if err != nil {
		if setupExc != 0 {
			_ = in.freeValue(ctx, setupExc)
		}
		return err
	}
	if setupExc != 0 {
		// The setup does not compile: the execution fails as with a
		// program that does not.
		return in.startFailed(ctx, setupExc)
	}
	mod, exc, err := s.compileProgram(ctx, in, msg.Source, msg.Filename)
	if err != nil {
		return err
	}
	if exc != 0 {
		return in.startFailed(ctx, exc)
	}
	if mod.tag() != tagModule {
		return fmt.Errorf("quickjs: compiling a module gave a value with tag %d", mod.tag())
	}
	def := uint32(mod)
	p, err := in.invoke(ctx, in.x.evalFunction, uint64(in.l.ctx), uint64(mod))
	if err != nil {
		return err
	}
	promise := jsValue(p)
	if promise.isException() {
		exc, err := in.exception(ctx)
		if err != nil {
			return err
		}
		return in.startFailed(ctx, exc)
	}
	ns, err := in.invoke(ctx, in.x.moduleNamespace, uint64(in.l.ctx), uint64(def))
	if err != nil {
		return err
	}
	r, err := in.callRunner(ctx, fnStart, promise, jsValue(ns))
	_ = in.freeValue(ctx, promise)
	_ = in.freeValue(ctx, jsValue(ns))
	if err != nil {
		return err
	}
	return in.freeValue(ctx, r)
}

// prepare calls the runner's prepare for the execution (see requestArgs),
// with its scope setup compiled. It returns the setup's exception when the
// setup does not compile (the execution then fails as with a program that
// does not), which the caller frees.
func (s *server) prepare(ctx context.Context, in *instance, msg *wire.Message, req requestArgs, st *driveState) (setupExc jsValue, err error) {
	// The strings and the setup are made here and freed after the call;
	// an absent part text, and the tools of a prebuilt scope (which holds
	// the namespaces and the setup's work), are null.
	args := [12]jsValue{jsNull, jsNull, jsNull, jsInt(st.prebuilt), jsNull}
	defer func() {
		for _, v := range [...]jsValue{args[0], args[1], args[2], args[4]} {
			if v != jsNull {
				_ = in.freeValue(ctx, v)
			}
		}
	}()
	if req.parts != "" {
		if args[0], err = in.text(ctx, s.m.stringHead, isASCII(req.parts), req.parts); err != nil {
			return 0, err
		}
	}
	if st.prebuilt == 0 {
		if args[1], err = in.text(ctx, s.m.stringHead, st.names.ascii, st.names.text); err != nil {
			return 0, err
		}
		if args[2], setupExc, err = s.setup(ctx, in, msg.Setup); err != nil {
			return 0, err
		}
	}
	if args[4], err = in.newString(ctx, msg.Filename); err != nil {
		return setupExc, err
	}
	args[5], args[6], args[7] = jsLimit(st.lim.maxOutput), jsLimit(st.lim.maxContent), jsLimit(st.lim.maxTimers)
	for i, w := range req.seed {
		args[8+i] = jsInt(int32(w))
	}
	r, err := in.callRunner(ctx, fnPrepare, args[:]...)
	if err != nil {
		return setupExc, err
	}
	return setupExc, in.freeValue(ctx, r)
}

// startFailed hands the runner's start the exception that kept the
// program from starting (its module or its setup did not compile or
// evaluate), and frees it.
func (in *instance) startFailed(ctx context.Context, exc jsValue) error {
	r, err := in.callRunner(ctx, fnStart, jsNull, jsNull, exc)
	_ = in.freeValue(ctx, exc)
	if err != nil {
		return err
	}
	return in.freeValue(ctx, r)
}

// setup returns the execution's scope setup (wire 1.3) as a function
// value, compiled before the program's module is (so nothing the program
// does can change it), or null without one; or the exception its text
// threw when it does not compile. Both values are the caller's. The
// compiled form is kept as bytecode (server.setups).
func (s *server) setup(ctx context.Context, in *instance, text string) (fn, exc jsValue, err error) {
	if text == "" {
		return jsNull, 0, nil
	}
	var code jsValue
	if b, ok := s.setups.get(text); ok {
		if code, err = in.readObject(ctx, b); err != nil {
			return 0, 0, err
		}
	} else {
		var exc jsValue
		if code, exc, err = in.evalRaw(ctx, "(\n"+text+"\n)", wire.SetupFilename, evalTypeGlobal|evalFlagCompile); err != nil || exc != 0 {
			return jsNull, exc, err
		}
		b, err := in.writeObject(ctx, code)
		if err != nil {
			_ = in.freeValue(ctx, code)
			return 0, 0, err
		}
		s.setups.put(text, b, len(text)+len(b))
	}
	if code.isException() {
		exc, err := in.exception(ctx)
		return jsNull, exc, err
	}
	v, err := in.invoke(ctx, in.x.evalFunction, uint64(in.l.ctx), uint64(code)) // frees code
	if err != nil {
		return 0, 0, err
	}
	if jsValue(v).isException() {
		exc, err := in.exception(ctx)
		return jsNull, exc, err
	}
	return jsValue(v), 0, nil
}

func (s *server) deliver(ctx context.Context, in *instance, ev event) error {
	if ev.timer != 0 {
		r, err := in.callRunner(ctx, fnFire, jsInt(ev.timer))
		if err != nil {
			return err
		}
		return in.freeValue(ctx, r)
	}
	if ev.seq > 1<<31-1 {
		return fmt.Errorf("quickjs: tool call seq %d out of range", ev.seq)
	}
	if ev.release {
		r, err := in.callRunner(ctx, fnRelease, jsInt(int32(ev.seq)))
		if err != nil {
			return err
		}
		return in.freeValue(ctx, r)
	}
	if ev.ok && len(ev.output) >= valueMin && bytes.Equal(s.m.stringHead, valueHead[:]) {
		if done, err := deliverValue(ctx, in, ev); done || err != nil {
			return err
		}
	}
	payload := ev.output
	if !ev.ok {
		payload, _ = json.Marshal(ev.err)
	}
	pv, err := in.text(ctx, s.m.stringHead, isASCII(payload), string(payload))
	if err != nil {
		return err
	}
	var r jsValue
	if ev.held {
		r, err = in.callRunner(ctx, fnHold, jsInt(int32(ev.seq)), pv)
	} else {
		r, err = in.callRunner(ctx, fnDeliver, jsInt(int32(ev.seq)), jsBool(ev.ok), pv)
	}
	_ = in.freeValue(ctx, pv)
	if err != nil {
		return err
	}
	return in.freeValue(ctx, r)
}

// valueMin is the smallest output the driver hands the runner as a value
// read from its serialised form (bjson.go) rather than as text for
// JSON.parse; below it the two cost about the same.
const valueMin = 4 << 10

// deliverValue hands the runner the output of call ev.seq (held or not) as
// a value read from its serialised form, and reports false, having done
// nothing, when the encoder does not take the text or the engine cannot
// read it (out of memory): JSON.parse then reads the text as before.
func deliverValue(ctx context.Context, in *instance, ev event) (bool, error) {
	var enc valueEncoder
	b, ok := enc.encode(ev.output)
	if !ok {
		return false, nil
	}
	v, ok, err := in.readValue(ctx, b)
	if err != nil || !ok {
		return false, err
	}
	fn := fnDeliverValue
	if ev.held {
		fn = fnHoldValue
	}
	r, err := in.callRunner(ctx, fn, jsInt(int32(ev.seq)), v)
	_ = in.freeValue(ctx, v)
	if err != nil {
		return true, err
	}
	return true, in.freeValue(ctx, r)
}

// stoppedInside reports whether err, what ended an execution's drive at
// its deadline, is the engine stopped at an interrupt poll (its module
// closed: nothing can be called in it) rather than the wait for a tool
// result or a timer (the engine intact, between turns).
func stoppedInside(err error) bool {
	var exit *sys.ExitError
	return errors.As(err, &exit)
}

// waitingStackTimeout bounds the call that reads where an intact engine
// waited: the runner's function walks its pending calls, nothing more.
const waitingStackTimeout = 100 * time.Millisecond

// waitingStack is the program's frames of the oldest tool call in waited
// for (the runner's waitingStack), or "" when it waited for none or the
// engine cannot say: a deadline that passes while a program waits then
// names the line that waited.
func waitingStack(in *instance) string {
	ctx, cancel := context.WithTimeout(context.Background(), waitingStackTimeout)
	defer cancel()
	v, err := in.callRunner(ctx, fnWaitingStack)
	if err != nil {
		return ""
	}
	text, err := in.goString(ctx, v)
	_ = in.freeValue(ctx, v)
	if err != nil {
		return ""
	}
	return withoutRunnerFrames(validStack(cutToLines(text, maxWaitingStack)))
}

// validStack is stack as valid UTF-8: QuickJS writes a lone surrogate of a
// function's name (a program may name one '\ud800') as three bytes that
// are not UTF-8, and the wire refuses a message holding them, which failed
// the execution as a malformed message and replaced the sandbox process.
func validStack(stack string) string {
	return strings.ToValidUTF8(stack, "\uFFFD")
}

// cutToLines is text cut to at most max bytes of whole lines: a frame cut
// in two names no place.
func cutToLines(text string, max int) string {
	if len(text) <= max {
		return text
	}
	return text[:strings.LastIndexByte(text[:max], '\n')+1]
}

// maxWaitingStack bounds the stack waitingStack gives, in bytes: QuickJS
// keeps a stack's first frames, and a call's deepest is the program's line.
const maxWaitingStack = 4 << 10

// withoutRunnerFrames drops the runner's own frames from a stack trace: the
// agent can do nothing with them.
func withoutRunnerFrames(stack string) string {
	if !strings.Contains(stack, runnerFilename) {
		return stack
	}
	lines := strings.SplitAfter(stack, "\n")
	kept := lines[:0]
	for _, l := range lines {
		if !strings.Contains(l, runnerFilename) {
			kept = append(kept, l)
		}
	}
	return strings.Join(kept, "")
}

func failure(id uint64, name, message string) *wire.Message {
	return &wire.Message{Kind: wire.KindResult, Execution: id, Outcome: wire.OutcomeProgramFailed,
		Error: &wire.Error{Name: name, Message: message}}
}

// isOutOfMemory reports whether an uncaught error is QuickJS's "out of
// memory", or the null QuickJS throws instead when it cannot even allocate
// that error (the runner reports a thrown null as Error "null"). The caller
// checks the engine's out-of-memory flag too, so a program that throws
// either value itself is reported as it threw it.
func isOutOfMemory(e *wire.Error) bool {
	return (e.Name == "InternalError" && e.Message == "out of memory") || (e.Name == "Error" && e.Message == "null")
}

// limitName is the error name for an execution the engine could not finish.
func limitName(err error) string {
	if isTrap(err) {
		return "RangeError"
	}
	return "InternalError"
}

func isTrap(err error) bool {
	return strings.Contains(err.Error(), "wasm error")
}

// describeTrap turns an engine failure into a message that names the limit.
func describeTrap(err error, memory uint64) string {
	text := err.Error()
	switch {
	case strings.Contains(text, "out of bounds memory access"), strings.Contains(text, "stack overflow"), strings.Contains(text, "call stack exhausted"):
		return "the program exhausted the engine's stack (recursion too deep); the engine was replaced"
	case strings.Contains(text, "quickjs: runner ") && strings.Contains(text, " threw: "):
		// The runner's entries catch everything a program throws; one that
		// throws means the engine's memory is corrupt, which today means
		// the program's recursion overflowed the engine's shadow stack into
		// its data, until the stack is guarded.
		return fmt.Sprintf("the engine's state was corrupted, most likely by recursion too deep for its stack (%v); the engine was replaced", err)
	case strings.Contains(text, "memory"):
		return fmt.Sprintf("the program exceeded the memory limit of %s; the engine was replaced", byteSize(memory))
	}
	return fmt.Sprintf("the engine failed: %v; it was replaced", err)
}

// byteSize renders a byte count for messages: "64 MiB" when it is whole
// mebibytes, else "1500 bytes".
func byteSize[T ~int | ~int64 | ~uint32 | ~uint64](n T) string {
	if n > 0 && n%(1<<20) == 0 {
		return fmt.Sprintf("%d MiB", n>>20)
	}
	return fmt.Sprintf("%d bytes", n)
}
