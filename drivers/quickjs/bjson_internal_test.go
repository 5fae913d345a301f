package quickjs

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
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
	} {
		if checkValueForm(t, in, text) {
			taken++
		}
	}
	// Of the texts JSON.parse takes, the encoder leaves three to it: an
	// escaped property name, text that is not UTF-8, and 300 levels.
	if taken != 39 {
		t.Errorf("the encoder took %d of the texts, want 39", taken)
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
