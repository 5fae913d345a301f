package client

import (
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/codemode-go/codemode/internal/codeform"
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

// madeUpStack is model-written code of two lines of about size bytes each,
// erased, and an error text as a program can make it: frames on the
// code's first line and positions past its end, n of each.
func madeUpStack(t testing.TB, size, n int) (*erased, string, string, string) {
	long := strings.Repeat("a é 𝄞 ", size/10)
	code := "const s = \"" + long + "\";\nthrow new Error(s.slice(0, 1)) // " + long
	es := testSession(t)
	back := codeform.Normalize(code, []string{"codemode", "console", "result"}, "", es)
	prog, err := erase(back.Module, back, es)
	if err != nil {
		t.Fatal(err)
	}
	frame, past := "    at f (agent.ts:2:5)", "agent.ts:9:1"
	text := strings.Repeat(past+" ", n) + "\n" + strings.Repeat(frame+"\n", n)
	return prog, text, frame, past
}

// TestMapTextMapsTheFirstPositionsOfAMadeUpStack: a program can throw an
// error whose text names positions thousands of times (the adversarial
// review of 2026-12-06: 1,250 made-up frames and a 1 MB line took 9.8 s
// to map after the run). mapText maps the first maxMappedPositions of
// them, each as it maps one alone, and leaves the rest as they are.
func TestMapTextMapsTheFirstPositionsOfAMadeUpStack(t *testing.T) {
	prog, text, frame, past := madeUpStack(t, 120_000, 1250) // blank reads up to 256 KB (blank.MaxSource)
	got := prog.mapText(text)
	mappedPast, mappedFrame := strings.TrimSpace(prog.mapText(past)), prog.mapText(frame)
	if mappedPast == past || mappedFrame == frame {
		t.Fatalf("a position alone is not mapped: %q, %q", mappedPast, mappedFrame)
	}
	words, frames, _ := strings.Cut(got, "\n")
	want := strings.Repeat(mappedPast+" ", maxMappedPositions) + strings.Repeat(past+" ", 1250-maxMappedPositions)
	if words != want {
		t.Errorf("positions past the end: %d mapped, %d as they were; want %d mapped",
			strings.Count(words, mappedPast), strings.Count(words, past), maxMappedPositions)
	}
	// The frames come after the text's first 100 positions: none is mapped,
	// and none is dropped (it is in the code).
	if frames != strings.Repeat(frame+"\n", 1250) {
		t.Errorf("the frames after the first %d positions changed", maxMappedPositions)
	}
	// Frames first: the first 100 are mapped.
	_, stack, _ := strings.Cut(text, "\n")
	got = prog.mapText(stack)
	if want := strings.Repeat(mappedFrame+"\n", maxMappedPositions) + strings.Repeat(frame+"\n", 1250-maxMappedPositions); got != want {
		t.Errorf("frames: %d mapped, %d as they were; want %d mapped",
			strings.Count(got, mappedFrame), strings.Count(got, frame), maxMappedPositions)
	}
}

// BenchmarkMapTextOfAMadeUpStack is mapText over 1,250 made-up frames and
// 1,250 positions past the end of code with lines of 30 KB and 120 KB (the
// code blank reads: blank.MaxSource): the time does not grow with the
// lines.
func BenchmarkMapTextOfAMadeUpStack(b *testing.B) {
	for _, size := range []int{30_000, 120_000} {
		prog, text, _, _ := madeUpStack(b, size, 1250)
		b.Run(fmt.Sprintf("%dKB", size/1000), func(b *testing.B) {
			for b.Loop() {
				prog.mapText(text)
			}
		})
	}
}
