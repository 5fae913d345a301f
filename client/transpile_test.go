package client

import (
	"strconv"
	"strings"
	"testing"
)

func TestEraseKeepsSubmittedCoordinates(t *testing.T) {
	src := "// a comment\ntype T = { a: number };\ninterface I { b: string }\nexport default async function (scope: unknown): Promise<void> {\n  const x: number = 1;\n  throw new Error(\"here\" + x);\n}\n"
	prog, err := erase(src, nil, testSession(t))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(prog.js, "interface") || strings.Contains(prog.js, ": number") {
		t.Fatalf("TypeScript left in the output:\n%s", prog.js)
	}
	// Find where `throw` landed in the erased code and map it back.
	var line, col int
	for i, l := range strings.Split(prog.js, "\n") {
		if c := strings.Index(l, "throw"); c >= 0 {
			line, col = i+1, c+1
		}
	}
	got := prog.mapText("    at default (agent.ts:" + itoa(line) + ":" + itoa(col) + ")")
	if got != "    at default (agent.ts:6:3)" {
		t.Fatalf("mapped %q", got)
	}
}

func itoa(i int) string { return strconv.Itoa(i) }

func TestEraseReportsSyntaxErrorsAtTheSubmittedPosition(t *testing.T) {
	_, err := erase("export default async function () {\n  let x = ;\n}\n", nil, testSession(t))
	pe, ok := err.(*ProgramError)
	if !ok || pe.Name != "SyntaxError" || !strings.Contains(pe.Message, "agent.ts:2:11") {
		t.Fatalf("got %#v", err)
	}
}

func TestExcerptMarksTheColumn(t *testing.T) {
	prog, err := erase("export default async function ({ codemode }) {\n  await codemode.echo({ value: 1 });\n}\n", nil, testSession(t))
	if err != nil {
		t.Fatal(err)
	}
	got := prog.excerptAt("at default (agent.ts:2:18)")
	want := "  at agent.ts:2:18\n  1 | export default async function ({ codemode }) {\n> 2 |   await codemode.echo({ value: 1 });\n    |                  ^\n  3 | }"
	if got != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
	if prog.excerptAt("no position here") != "" || prog.excerptAt("agent.ts:99:1") != "" {
		t.Fatal("excerpt for a missing position")
	}
}

func TestEraseCacheReturnsTheSameProgram(t *testing.T) {
	c := newEraseCache(2 * entrySize("export default 1", &erased{js: "export default 1;\n", source: "export default 1"}))
	a1, _ := c.erase("export default 1", "export default 1", nil, nil)
	a2, _ := c.erase("export default 1", "export default 1", nil, nil)
	if a1 != a2 {
		t.Fatal("a repeated source was erased again")
	}
	c.erase("export default 2", "export default 2", nil, nil)
	c.erase("export default 3", "export default 3", nil, nil)
	a3, _ := c.erase("export default 1", "export default 1", nil, nil)
	if a3 == a1 || c.order.Len() != 2 {
		t.Fatalf("the cache kept more than its bound: %d entries", c.order.Len())
	}
}

func TestTelemetryPanicsAreSwallowedAndTerminalEventIsLast(t *testing.T) {
	var seen []EventKind
	tel := telemetry{fn: func(e Event) {
		seen = append(seen, e.Kind)
		panic("observer bug")
	}}
	tel.emit(Event{Kind: EventProgramOutput})
	tel.emit(Event{Kind: EventExecutionCompleted})
	tel.emit(Event{Kind: EventToolCallCompleted})
	if len(seen) != 2 || seen[1] != EventExecutionCompleted {
		t.Fatalf("events %v", seen)
	}
}
