package quickjs

import (
	"bytes"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/codemode-go/codemode/internal/wire"
)

// The Go runner trusts nothing from an engine: every outbox entry that is
// malformed, forged or past a limit is refused as an *outboxError, which
// fails that execution alone (an InternalError) and never reaches the wire.
func TestOutboxRefusesForgedEntries(t *testing.T) {
	big := strings.Repeat("x", 4<<20)
	tests := []struct {
		name, text, want string
	}{
		{"an unknown stream", "o\tstdin\t\"x\"\nw\t0", "neither stdout nor stderr"},
		{"output that is not a JSON string", "o\tstdout\tx\nw\t0", "not a JSON string"},
		{"output past the limit", "o\tstdout\t\"" + big + "\"\nw\t0", "past the limit of 100"},
		{"a tool call out of order", "c\t2\tcodemode\techo\t\t0,0\t{}\nw\t1", "seq \"2\" where 1 was due"},
		{"a tool call repeated", "c\t1\tcodemode\techo\t\t0,0\t{}\nc\t1\tcodemode\techo\t\t0,0\t{}\nw\t1", "where 2 was due"},
		{"an undeclared tool", "c\t1\tcodemode\trm_rf\t\t0,0\t{}\nw\t1", "does not declare"},
		{"a malformed tool call", "c\t1\tcodemode\nw\t1", "malformed tool call"},
		{"tool input that is not JSON", "c\t1\tcodemode\techo\t\t0,0\t{oops\nw\t1", "not JSON"},
		{"a clock that is not a number", "c\t1\tcodemode\techo\tNaN\t0,0\t{}\nw\t1", "not a finite number"},
		{"a random-stream use that is not two numbers", "c\t1\tcodemode\techo\t\t3\t{}\nw\t1", "malformed random-stream use"},
		{"a timer past the limit", "t\t1\t5\nt\t2\t5\nt\t3\t5\nw\t1", "more than 2 timers"},
		{"a timer armed twice", "t\t1\t5\nt\t1\t5\nw\t1", "twice"},
		{"a negative delay", "t\t1\t-5\nw\t1", "malformed timer"},
		{"an unknown entry", "z\tanything\nw\t0", "unknown entry"},
		{"no wait entry", "o\tstdout\t\"x\"", "without its wait entry"},
		{"a bad wait entry", "w\t2", "malformed wait"},
		{"an outcome that does not decode", "d\t{\"outcome\":", "does not decode"},
		{"an outcome with an unknown field", `d	{"outcome":"success","content":[],"forged":1,"clock":[]}`, "does not decode"},
		{"an unknown outcome", `d	{"outcome":"maybe","clock":[]}`, "neither success nor program-failed"},
		{"a success with an error", `d	{"outcome":"success","content":[],"error":{"name":"E","message":"m"},"clock":[]}`, "carries an error"},
		{"a failure without an error", `d	{"outcome":"program-failed","clock":[]}`, "without an error"},
		{"content of an unknown type", `d	{"outcome":"success","content":[{"type":"video","text":"x"}],"clock":[]}`, "type \"video\""},
		{"content past the limit", `d	{"outcome":"success","content":[{"type":"text","text":"` + strings.Repeat("y", 101) + `"}],"clock":[]}`, "past the limit of 100"},
		{"a value past the limit", `d	{"outcome":"success","content":[],"value":"` + strings.Repeat("y", 101) + `","clock":[]}`, "past the limit of 100"},
		{"text after the outcome", `d	{"outcome":"success","content":[],"clock":[]} {}`, "text after the outcome"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := &server{}
			ex := &execution{id: 1, wake: make(chan struct{}, 1)}
			st := &driveState{lim: limits{maxOutput: 100, maxContent: 100, maxTimers: 2, memory: 1 << 20},
				timers: map[int32]*time.Timer{}, names: &scopeNames{tools: map[string]bool{"codemode\x00echo": true}}}
			defer func() {
				for _, tm := range st.timers {
					tm.Stop()
				}
			}()
			_, res, err := s.readOutbox(ex, tt.text, st)
			var bad *outboxError
			if !errors.As(err, &bad) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("got %v, %+v; want an outbox error saying %q", err, res, tt.want)
			}
			// What came before the fault was checked too; nothing after it
			// was queued to be sent.
			r := wire.NewReader(bytes.NewReader(ex.out))
			for {
				m, err := r.Read()
				if err != nil {
					break
				}
				if m.Kind == wire.KindOutput && m.Stream != wire.StreamStdout {
					t.Fatalf("sent %+v", m)
				}
			}
		})
	}
}

func TestOutboxPassesWellFormedEntries(t *testing.T) {
	s := &server{}
	ex := &execution{id: 3, wake: make(chan struct{}, 1)}
	st := &driveState{lim: limits{maxOutput: 100, maxContent: 100, maxTimers: 2, memory: 1 << 20},
		timers: map[int32]*time.Timer{}, names: &scopeNames{tools: map[string]bool{"codemode\x00echo": true}}}
	text := "c\t1\tcodemode\techo\t1000,2.5\t3,16\t{\"a\":1}\no\tstderr\t\"hi\\n\"\nt\t1\t100000\nx\t1\nw\t1"
	waiting, res, err := s.readOutbox(ex, text, st)
	if err != nil || res != nil || !waiting {
		t.Fatalf("got %v %+v %v", waiting, res, err)
	}
	if len(st.timers) != 0 {
		t.Fatalf("a stopped timer is still armed: %v", st.timers)
	}
	// One drain's messages are queued, to be sent in one write.
	r := wire.NewReader(bytes.NewReader(ex.out))
	call, err := r.Read()
	if err != nil || call.Kind != wire.KindToolCall || call.Seq != 1 || string(call.Input) != `{"a":1}` || len(call.Clock) != 2 || call.Clock[1] != 2.5 || call.RandomDraws != 3 || call.RandomBytes != 16 {
		t.Fatalf("tool call %+v %v", call, err)
	}
	out, err := r.Read()
	if err != nil || out.Kind != wire.KindOutput || out.Stream != wire.StreamStderr || out.Text != "hi\n" {
		t.Fatalf("output %+v %v", out, err)
	}
	_, res, err = s.readOutbox(ex, `d	{"outcome":"success","content":[{"type":"text","text":"a"}],"value":{"v":[1]},"clock":[7]}`, st)
	if err != nil || res == nil || string(res.Value) != `{"v":[1]}` || len(res.Content) != 1 || len(res.Clock) != 1 {
		t.Fatalf("result %+v %v", res, err)
	}
}
