package quickjs

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/codemode-go/codemode/wire"
)

// event is something an execution waits for: a tool result, a timer, or the
// host's cancel.
type event struct {
	seq    uint64
	ok     bool
	output []byte
	err    *wire.Error
	timer  int32
	cancel bool
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
	Outcome string         `json:"outcome"`
	Content []wire.Content `json:"content"`
	Error   *wire.Error    `json:"error"`
}

type requestJSON struct {
	Filename   string          `json:"filename"`
	HasInput   bool            `json:"hasInput"`
	Input      json.RawMessage `json:"input,omitempty"`
	Namespaces []nsJSON        `json:"namespaces"`
	Limits     limitsJSON      `json:"limits"`
}

type nsJSON struct {
	Name  string   `json:"name"`
	Tools []string `json:"tools"`
}

type limitsJSON struct {
	MaxOutput  int `json:"maxOutput"`
	MaxContent int `json:"maxContent"`
}

// maxToolInput is the largest tool input, in bytes, that fits a frame with
// room for the message's other fields.
const maxToolInput = wire.MaxFrameSize - 64<<10

// errStopped marks an execution the host cancelled: it sends no result.
var errStopped = errors.New("quickjs: execution cancelled by the host")

// run drives one execution to its end and sends its execution-result
// message, or nothing when the host cancelled it. The engine is reset and
// pooled after the result is sent, off the caller's critical path.
func (s *server) run(ex *execution, msg *wire.Message) {
	defer ex.stop(nil)
	ctx, cancel := context.WithTimeoutCause(ex.base, s.opts.Timeout,
		fmt.Errorf("the execution deadline of %s was exceeded", s.opts.Timeout))
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
	var timers []*time.Timer
	result, err := s.drive(ctx, in, ex, msg, &timers)
	for _, t := range timers {
		t.Stop()
	}
	switch {
	case ctx.Err() != nil && errors.Is(context.Cause(ctx), errStopped):
		s.m.discard(in)
		s.end(ex, nil)
	case ctx.Err() != nil:
		// The deadline passed, while the engine ran (it was stopped at an
		// interrupt poll) or while it waited.
		s.m.discard(in)
		s.end(ex, failure(ex.id, "TimeoutError", fmt.Sprintf("the program was stopped: %v", context.Cause(ctx))))
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
			"out of memory: the program exceeded the memory limit of %s; the engine was replaced", byteSize(s.opts.MemoryLimit))))
	case err != nil:
		s.m.discard(in)
		s.end(ex, failure(ex.id, limitName(err), describeTrap(err, s.opts)))
	default:
		s.end(ex, result)
		s.m.put(in)
	}
}

func (s *server) drive(ctx context.Context, in *instance, ex *execution, msg *wire.Message, timers *[]*time.Timer) (*wire.Message, error) {
	req := requestJSON{
		Filename: msg.Filename,
		HasInput: msg.HasInput,
		Limits:   limitsJSON{MaxOutput: s.opts.MaxOutput, MaxContent: s.opts.MaxContent},
	}
	if msg.HasInput {
		if !json.Valid(msg.Input) {
			return failure(ex.id, "TypeError", "program input is not valid JSON"), nil
		}
		req.Input = msg.Input
	}
	req.Namespaces = make([]nsJSON, 0, len(msg.Namespaces))
	for _, ns := range msg.Namespaces {
		req.Namespaces = append(req.Namespaces, nsJSON{Name: ns.Name, Tools: ns.Tools})
	}
	reqText, err := json.Marshal(req)
	if err != nil {
		return nil, err
	}
	if err := s.start(ctx, in, msg, string(reqText)); err != nil {
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
		waiting := false
		for len(text) > 0 {
			line := text
			if i := strings.IndexByte(text, '\n'); i >= 0 {
				line, text = text[:i], text[i+1:]
			} else {
				text = ""
			}
			kind, rest, _ := strings.Cut(line, "\t")
			switch kind {
			case "c":
				f := strings.SplitN(rest, "\t", 4)
				if len(f) != 4 {
					return nil, fmt.Errorf("quickjs: malformed tool call in the runner outbox: %.100q", line)
				}
				seq, err := strconv.ParseUint(f[0], 10, 64)
				if err != nil {
					return nil, fmt.Errorf("quickjs: tool call seq %q: %w", f[0], err)
				}
				if len(f[3]) > maxToolInput {
					ex.post(event{seq: seq, err: &wire.Error{Name: "RangeError", Message: fmt.Sprintf(
						"the input of %s.%s is %d bytes; a tool call carries at most %d", f[1], f[2], len(f[3]), maxToolInput)}})
					continue
				}
				s.send(&wire.Message{Kind: wire.KindToolCall, Execution: ex.id, Seq: seq, Namespace: f[1], Tool: f[2], Input: []byte(f[3])})
			case "o":
				stream, quoted, _ := strings.Cut(rest, "\t")
				var out string
				if err := json.Unmarshal([]byte(quoted), &out); err != nil {
					return nil, fmt.Errorf("quickjs: decoding program output: %w", err)
				}
				s.send(&wire.Message{Kind: wire.KindOutput, Execution: ex.id, Stream: stream, Text: out})
			case "t":
				idText, msText, _ := strings.Cut(rest, "\t")
				id, err1 := strconv.ParseInt(idText, 10, 32)
				ms, err2 := strconv.ParseInt(msText, 10, 64)
				if err1 != nil || err2 != nil {
					return nil, fmt.Errorf("quickjs: malformed timer in the runner outbox: %.100q", line)
				}
				*timers = append(*timers, time.AfterFunc(time.Duration(ms)*time.Millisecond, func() {
					ex.post(event{timer: int32(id)})
				}))
			case "d":
				var f finishJSON
				if err := json.Unmarshal([]byte(rest), &f); err != nil {
					return nil, fmt.Errorf("quickjs: decoding the outcome: %w", err)
				}
				res := &wire.Message{Kind: wire.KindResult, Execution: ex.id, Outcome: f.Outcome, Content: f.Content, Error: f.Error}
				if f.Error != nil {
					f.Error.Stack = withoutRunnerFrames(f.Error.Stack)
				}
				if f.Error != nil && in.outOfMemory() && isOutOfMemory(f.Error) {
					f.Error.Name = "RangeError"
					f.Error.Message = fmt.Sprintf("out of memory: the program exceeded the memory limit of %s", byteSize(s.opts.MemoryLimit))
				}
				if f.Outcome == wire.OutcomeSuccess && res.Content == nil {
					res.Content = []wire.Content{}
				}
				// The outbox is program-reachable state: check the outcome
				// before it leaves, so no program can break the wire.
				if err := res.Check(); err != nil {
					return failure(ex.id, "InternalError", fmt.Sprintf("the program corrupted the runner's outcome: %v", err)), nil
				}
				if p, err := wire.Marshal(res); err != nil || len(p) > wire.MaxFrameSize {
					return failure(ex.id, "RangeError", fmt.Sprintf("the result is %d bytes; a result carries at most %d (16 MiB)", len(p), wire.MaxFrameSize)), nil
				}
				return res, nil
			case "w":
				waiting = rest == "1"
			default:
				return nil, fmt.Errorf("quickjs: unknown entry in the runner outbox: %.100q", line)
			}
		}
		if !waiting {
			return failure(ex.id, "Error", "the program awaits a promise that nothing can settle: no tool call or timer is outstanding"), nil
		}
		ev, ok := ex.take()
		for !ok {
			select {
			case <-ex.wake:
				ev, ok = ex.take()
			case <-ctx.Done():
				return nil, context.Cause(ctx)
			}
		}
		if ev.cancel {
			return nil, errStopped
		}
		if err := s.deliver(ctx, in, ev); err != nil {
			return nil, err
		}
	}
}

// start evaluates the program as a fresh root module and hands the
// evaluation promise and module namespace to the runner.
func (s *server) start(ctx context.Context, in *instance, msg *wire.Message, req string) error {
	reqVal, err := in.newString(ctx, req)
	if err != nil {
		return err
	}
	r, err := in.callRunner(ctx, fnPrepare, reqVal)
	_ = in.freeValue(ctx, reqVal)
	if err != nil {
		return err
	}
	if err := in.freeValue(ctx, r); err != nil {
		return err
	}
	mod, exc, err := in.evalRaw(ctx, msg.Source, msg.Filename, evalTypeModule|evalFlagCompile)
	if err != nil {
		return err
	}
	if exc != 0 {
		r, err := in.callRunner(ctx, fnStart, jsNull, jsNull, exc)
		_ = in.freeValue(ctx, exc)
		if err != nil {
			return err
		}
		return in.freeValue(ctx, r)
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
		r, err := in.callRunner(ctx, fnStart, jsNull, jsNull, exc)
		_ = in.freeValue(ctx, exc)
		if err != nil {
			return err
		}
		return in.freeValue(ctx, r)
	}
	ns, err := in.invoke(ctx, in.x.moduleNamespace, uint64(in.l.ctx), uint64(def))
	if err != nil {
		return err
	}
	r, err = in.callRunner(ctx, fnStart, promise, jsValue(ns))
	_ = in.freeValue(ctx, promise)
	_ = in.freeValue(ctx, jsValue(ns))
	if err != nil {
		return err
	}
	return in.freeValue(ctx, r)
}

func (s *server) deliver(ctx context.Context, in *instance, ev event) error {
	if ev.timer != 0 {
		r, err := in.callRunner(ctx, fnFire, jsInt(ev.timer))
		if err != nil {
			return err
		}
		return in.freeValue(ctx, r)
	}
	payload := ev.output
	if !ev.ok {
		payload, _ = json.Marshal(ev.err)
	}
	pv, err := in.newString(ctx, string(payload))
	if err != nil {
		return err
	}
	if ev.seq > 1<<31-1 {
		return fmt.Errorf("quickjs: tool call seq %d out of range", ev.seq)
	}
	r, err := in.callRunner(ctx, fnDeliver, jsInt(int32(ev.seq)), jsBool(ev.ok), pv)
	_ = in.freeValue(ctx, pv)
	if err != nil {
		return err
	}
	return in.freeValue(ctx, r)
}

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
func describeTrap(err error, o Options) string {
	text := err.Error()
	switch {
	case strings.Contains(text, "out of bounds memory access"), strings.Contains(text, "stack overflow"), strings.Contains(text, "call stack exhausted"):
		return "the program exhausted the engine's stack (recursion too deep); the engine was replaced"
	case strings.Contains(text, "memory"):
		return fmt.Sprintf("the program exceeded the memory limit of %s; the engine was replaced", byteSize(o.MemoryLimit))
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
