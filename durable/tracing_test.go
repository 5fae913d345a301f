package durable_test

import (
	"context"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/codemode-go/codemode/codetool"
	"github.com/codemode-go/codemode/durable"
)

// attrs maps a recorded span's attributes by key.
func attrs(s sdktrace.ReadOnlySpan) map[attribute.Key]attribute.Value {
	m := map[attribute.Key]attribute.Value{}
	for _, kv := range s.Attributes() {
		m[kv.Key] = kv.Value
	}
	return m
}

// spansNamed returns the ended spans with that name, in end order.
func spansNamed(rec *tracetest.SpanRecorder, name string) []sdktrace.ReadOnlySpan {
	var out []sdktrace.ReadOnlySpan
	for _, s := range rec.Ended() {
		if s.Name() == name {
			out = append(out, s)
		}
	}
	return out
}

func TestTracingRecordsPassesToolCallsAndTransitions(t *testing.T) {
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	t.Cleanup(func() { tp.Shutdown(context.Background()) })
	svc := newService()
	st := openStore(t, t.TempDir()+"/journal.db")
	h := newHandle(t, st, durable.Options{TracerProvider: tp, Name: "ops"}, svc.github())

	out := execute(t, h, readThenWrite)
	if out.Status != codetool.StatusPaused {
		t.Fatalf("not paused: %+v", out)
	}
	passes := spansNamed(rec, "codemode.durable.pass")
	if len(passes) != 1 {
		t.Fatalf("%d pass spans after Execute", len(passes))
	}
	a := attrs(passes[0])
	if a["codemode.durable.status"].AsString() != "paused" || a["codemode.execution.id"].AsString() != out.ExecutionID ||
		a["codemode.durable.runtime"].AsString() != "ops" || a["codemode.durable.pass"].AsInt64() != 1 {
		t.Errorf("pass span attributes %v", a)
	}
	execs := spansNamed(rec, "codemode.execution")
	if len(execs) != 1 || execs[0].Parent().SpanID() != passes[0].SpanContext().SpanID() {
		t.Fatalf("the client's execution span is not the pass's child: %d spans", len(execs))
	}
	if d := attrs(execs[0])["codemode.driver"].AsString(); d != "QuickJS-NG" {
		t.Errorf("driver %q", d)
	}
	list := spansNamed(rec, "execute_tool github.list_pull_requests")
	if len(list) != 1 || attrs(list[0])["codemode.durable.call"].AsString() != "executed" || attrs(list[0])["codemode.tool.seq"].AsInt64() != 1 ||
		list[0].Parent().SpanID() != execs[0].SpanContext().SpanID() {
		t.Fatalf("the read's span: %d spans", len(list))
	}
	if c := spansNamed(rec, "execute_tool github.create_issue"); len(c) != 1 || attrs(c[0])["codemode.durable.call"].AsString() != "paused" {
		t.Fatalf("the pending write's span is missing or not marked paused")
	}

	if out := approve(t, h, out.ExecutionID); out.Status != codetool.StatusCompleted {
		t.Fatalf("approve: %+v", out)
	}
	approvals := spansNamed(rec, "codemode.journal.approve")
	if len(approvals) != 1 || attrs(approvals[0])["codemode.durable.status"].AsString() != "completed" {
		t.Fatalf("approve spans: %d", len(approvals))
	}
	second := spansNamed(rec, "codemode.durable.pass")[1]
	if second.Parent().SpanID() != approvals[0].SpanContext().SpanID() || attrs(second)["codemode.durable.pass"].AsInt64() != 2 {
		t.Errorf("the replay pass is not the approval's child, or not pass 2")
	}
	list = spansNamed(rec, "execute_tool github.list_pull_requests")
	if a := attrs(list[1]); a["codemode.durable.call"].AsString() != "replayed" || !a["codemode.durable.replayed"].AsBool() {
		t.Errorf("the replayed read is marked %v", a)
	}
	create := spansNamed(rec, "execute_tool github.create_issue")
	if a := attrs(create[1]); a["codemode.durable.call"].AsString() != "executed" || a["codemode.durable.replayed"].AsBool() {
		t.Errorf("the approved write is marked %v", a)
	}

	if err := h.Rollback(context.Background(), out.ExecutionID); err != nil {
		t.Fatal(err)
	}
	rb := spansNamed(rec, "codemode.journal.rollback")
	if len(rb) != 1 || attrs(rb[0])["codemode.durable.count"].AsInt64() != 1 || attrs(rb[0])["codemode.durable.status"].AsString() != "rolled_back" {
		t.Errorf("rollback span: %v", rb)
	}

	other := execute(t, h, readThenWrite)
	if ok, err := h.Reject(context.Background(), other.ExecutionID, 2); !ok || err != nil {
		t.Fatalf("reject: %v %v", ok, err)
	}
	rj := spansNamed(rec, "codemode.journal.reject")
	if len(rj) != 1 || attrs(rj[0])["codemode.tool.seq"].AsInt64() != 2 || attrs(rj[0])["codemode.durable.status"].AsString() != "rejected" {
		t.Errorf("reject span: %v", rj)
	}

	third := execute(t, h, readThenWrite)
	time.Sleep(5 * time.Millisecond) // the journal's clock is in milliseconds: let the pause be older than the cutoff
	ended, err := h.ExpirePaused(context.Background(), time.Millisecond)
	if err != nil || len(ended) != 1 || ended[0] != third.ExecutionID {
		t.Fatalf("expire: %v %v", ended, err)
	}
	if ex := spansNamed(rec, "codemode.journal.expire"); len(ex) != 1 || attrs(ex[0])["codemode.durable.count"].AsInt64() != 1 {
		t.Errorf("expire span: %v", ex)
	}

	failed := execute(t, h, `async () => { await github.list_pull_requests({ repo: "x" }); throw new Error("boom") }`)
	p := spansNamed(rec, "codemode.durable.pass")
	last := p[len(p)-1]
	if attrs(last)["codemode.durable.status"].AsString() != "error" || last.Status().Code != codes.Error || failed.Status != codetool.StatusError {
		t.Errorf("a failed pass: %v %v", attrs(last), last.Status())
	}
	ex := spansNamed(rec, "codemode.execution")
	if a := attrs(ex[len(ex)-1]); a["codemode.outcome"].AsString() != "program-failed" || a["codemode.error.name"].AsString() != "Error" {
		t.Errorf("the failed execution span: %v", a)
	}
}

func TestNoTracerProviderRecordsNothing(t *testing.T) {
	h, _, _ := fixture(t)
	out := execute(t, h, readThenWrite)
	if out.Status != codetool.StatusPaused {
		t.Fatalf("%+v", out)
	}
	if out := approve(t, h, out.ExecutionID); out.Status != codetool.StatusCompleted {
		t.Fatalf("%+v", out)
	}
}
