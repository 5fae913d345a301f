package quickjs

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"runtime"
	"strings"
	"testing"
)

// engineForm is the engine's serialisation (JS_WriteObject, no bytecode)
// of v, which it frees.
func engineForm(t testing.TB, in *instance, v jsValue) []byte {
	t.Helper()
	ctx := context.Background()
	defer func() { _ = in.freeValue(ctx, v) }()
	sizePtr := in.l.scratch
	p, err := in.invoke(ctx, in.x.writeObject, uint64(in.l.ctx), uint64(sizePtr), uint64(v), 0)
	if err != nil || uint32(p) == 0 {
		t.Fatalf("JS_WriteObject: %v", err)
	}
	sb, _ := in.mem.Read(sizePtr, 4)
	b, _ := in.mem.Read(uint32(p), binary.LittleEndian.Uint32(sb))
	out := append([]byte(nil), b...)
	if _, err := in.invoke(ctx, in.x.jsFree, uint64(in.l.ctx), p); err != nil {
		t.Fatal(err)
	}
	return out
}

// checkValueForm checks that the encoder's form of text, read by the
// engine, is the value JSON.parse makes of text: the engine serialises both
// to the same bytes (its own form is canonical, so types, string widths,
// property names and their order, and every number's bits agree). Text the
// encoder refuses must be text JSON.parse refuses, or text it reads
// differently (not UTF-8), or an escaped property name or deep nesting.
func checkValueForm(t testing.TB, in *instance, text string) bool {
	t.Helper()
	ctx := context.Background()
	var enc valueEncoder
	b, ok := enc.encode([]byte(text))
	lit, _ := json.Marshal(text)
	parsed, perr := in.evalText(ctx, "JSON.parse("+string(lit)+")", "t.js", evalTypeGlobal)
	if !ok {
		if perr == nil {
			_ = in.freeValue(ctx, parsed)
		}
		return false
	}
	if perr != nil {
		t.Fatalf("the encoder took %q, which JSON.parse refuses: %v", text, perr)
	}
	want := engineForm(t, in, parsed)
	v, ok, err := in.readValue(ctx, b)
	if err != nil || !ok {
		t.Fatalf("the engine could not read the encoder's form of %q (% x): %v", text, b, err)
	}
	if got := engineForm(t, in, v); !bytes.Equal(got, want) {
		t.Fatalf("%q: the encoder's value serialises to\n% x\nJSON.parse's to\n% x", text, got, want)
	}
	return true
}

func TestValueFormIsJSONParse(t *testing.T) {
	m := testTemplate(t)
	in, err := m.get(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer m.discard(in)
	if !bytes.Equal(m.stringHead, valueHead[:]) {
		t.Fatalf("the engine's string head is % x; the encoder writes % x", m.stringHead, valueHead)
	}
	taken := 0
	for _, text := range []string{
		`null`, `true`, `false`, `0`, `-0`, `1`, `-1.5`, `1e2`, `1E-2`, `1e400`, `-1e400`, `1e-400`, `0.1`,
		`123456789012345678901234567890`, `2.2250738585072011e-308`, `4.9e-324`, `1.7976931348623157e308`,
		`""`, `"ab"`, `"é"`, `"€"`, `"😀"`, `"a\"b\\c\/d\b\f\n\r\t"`, `"\u0000\u00e9\u20ac"`, `"\ud800"`, `"\udc00x\ud83d\ude00"`,
		`[]`, `[1,2]`, ` [ 1 , [ ] , { } ] `, `{}`, `{"a":1}`, `{"a":1,"b":{"a":2}}`, `{"1":1,"a":2,"0":3}`,
		`{"a":1,"a":2}`, `{"__proto__":1}`, `{"__proto__":{"x":1}}`, `{"4294967295":1,"2147483647":2,"2147483648":3,"01":4,"-1":5}`,
		`{"é":1,"€":2,"":3}`, `{"length":1,"name":"n","constructor":2,"toString":3,"then":4}`, `{"a\u0062":1}`,
		`[1,]`, `{"a":1,}`, `01`, `1.`, `.5`, `-`, `+1`, `tru`, `nul`, `"\x"`, `"\u12"`, "\"a\nb\"", `[1 2]`, `{"a" 1}`, `{a:1}`,
		"\xff", `"` + "\xc3" + `"`, `1 2`, ``, ` `,
		strings.Repeat("[", 300) + strings.Repeat("]", 300),
		// QuickJS-NG's JSON.parse rounds these to +0 (the first two are
		// -5e-324, the third -0): numbers that are subnormal or round to
		// zero go to JSON.parse.
		`-2.4703282292062328e-324`, `-24703282292062328e-340`, `-` + halfOfMinSubnormal + `e-324`,
	} {
		if checkValueForm(t, in, text) {
			taken++
		}
	}
	// Of the texts JSON.parse takes, the encoder leaves these to it: an
	// escaped property name, text that is not UTF-8, 300 levels, and
	// numbers that are subnormal or round to zero (1e-400, 4.9e-324,
	// 2.2250738585072011e-308 and the last three).
	if taken != 36 {
		t.Errorf("the encoder took %d of the texts, want 36", taken)
	}
}

// halfOfMinSubnormal is the exact half of the smallest subnormal float64,
// 2^-1075, whose digits are written here before "e-324".
const halfOfMinSubnormal = "2.4703282292062327208828439643411068618252990130716238221279284125033775363510437593264991818081799618989828234772285886546332835517796989819938739800539093906315035659515570226392290858392449105184435931802849936536152500319370457678249219365623669863658480757001585769269903706311928279558551332927834338409351978015531246597263579574622766465272827220056374006485499977096599470454020828166226237857393450736339007967761930577506740176324673600968951340535537458516661134223766678604162159680461914467291840300530057530849048765391711386591646239524912623653881879636239373280423891018672348497668235089863388587925628302755995657524455507255189313690836254779186948667994968324049705821028513185451396213837722826145437693412532098591327667236328125"

// TestValueFormIsNoLargerThanItsText: a hostile output of small numbers
// ("0," is 2 bytes of text, 9 in the form) went to the form at 4.5 times
// its size, and the encoder allocated about 30 times the text in the Go
// heap (the buffer grows by a quarter at a time, then is copied): 294 MB
// for a 10 MB output, in the runner process or, in process, in the host,
// outside every memory limit. A form larger than its text is refused
// (JSON.parse reads the text), and the encoder allocates a few times the
// text at most.
func TestValueFormIsNoLargerThanItsText(t *testing.T) {
	row := `{"id":12345,"name":"item-00001","tags":["a","b"],"note":"Lorem ipsum dolor sit amet"},`
	tests := []struct {
		name  string
		text  string
		taken bool
	}{
		{"small numbers", `[` + strings.Repeat(`0,`, 1<<20) + `0]`, false},
		{"empty objects", `[` + strings.Repeat(`{},`, 1<<20) + `0]`, false},
		{"wide strings of ASCII", `["€` + strings.Repeat(`a`, 2<<20) + `"]`, false},
		{"rows", `{"items":[` + strings.Repeat(row, 20000) + `0]}`, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			text := []byte(tt.text)
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			var enc valueEncoder
			form, ok := enc.encode(text)
			runtime.ReadMemStats(&after)
			if ok != tt.taken {
				t.Fatalf("taken %v (a form of %d bytes for %d of text), want %v", ok, len(form), len(text), tt.taken)
			}
			if ok && len(form) > len(text)+formSlack {
				t.Fatalf("a form of %d bytes for %d of text", len(form), len(text))
			}
			if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 4*uint64(len(text)) {
				t.Fatalf("the encoder allocated %d bytes for %d of text (%.1f times)", alloc, len(text), float64(alloc)/float64(len(text)))
			}
		})
	}
}

func FuzzValueForm(f *testing.F) {
	for _, s := range []string{`{"a":[1,"x",null,true,{"1":-0.5}]}`, `"\u00e9\ud83d"`, `[1e308,2e-308,{"é":"€"}]`, `{"a":1,"a":{"a":2}}`} {
		f.Add(s)
	}
	m := testTemplate(f)
	in, err := m.get(context.Background())
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { m.discard(in) })
	f.Fuzz(func(t *testing.T, text string) {
		checkValueForm(t, in, text)
	})
}

// BenchmarkToolOutput1MB compares the two ways a 1 MB tool output becomes
// a value in the engine: JSON.parse of the text, and the encoder plus
// JS_ReadObject.
func BenchmarkToolOutput1MB(b *testing.B) {
	m := testTemplate(b)
	ctx := context.Background()
	in, err := m.get(ctx)
	if err != nil {
		b.Fatal(err)
	}
	defer m.discard(in)
	var sb strings.Builder
	sb.WriteString(`{"items":[`)
	for i := 0; sb.Len() < 1<<20; i++ {
		if i > 0 {
			sb.WriteByte(',')
		}
		fmt.Fprintf(&sb, `{"id":%d,"name":"item-%05d","group":"g%02d","score":%g,"active":%v,"tags":["alpha","beta","t%d"],"note":"Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor incididunt ut labore."}`,
			i, i, (i*7)%23, float64((i*37)%1000)/10, i%3 != 0, i%5)
	}
	sb.WriteString(`]}`)
	text := sb.String()
	lit, _ := json.Marshal(text)
	if _, err := in.evalText(ctx, "globalThis.T = "+string(lit)+"; 0", "t.js", evalTypeGlobal); err != nil {
		b.Fatal(err)
	}
	b.Run("JSON.parse", func(b *testing.B) {
		b.SetBytes(int64(len(text)))
		for b.Loop() {
			v, err := in.evalText(ctx, "JSON.parse(T)", "t.js", evalTypeGlobal)
			if err != nil {
				b.Fatal(err)
			}
			b.StopTimer()
			_ = in.freeValue(ctx, v)
			b.StartTimer()
		}
	})
	b.Run("encoder", func(b *testing.B) {
		b.SetBytes(int64(len(text)))
		for b.Loop() {
			var enc valueEncoder
			form, ok := enc.encode([]byte(text))
			if !ok {
				b.Fatal("refused")
			}
			v, ok, err := in.readValue(ctx, form)
			if err != nil || !ok {
				b.Fatal(err)
			}
			b.StopTimer()
			_ = in.freeValue(ctx, v)
			b.StartTimer()
		}
	})
}
