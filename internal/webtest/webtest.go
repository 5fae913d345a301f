// Package webtest runs Worker-style programs that use the web platform
// globals (issue 15) and the host's fetch policy on a runtime: each driver's
// tests call Run with a runtime of that driver, so QuickJS and Node.js pass
// the same programs.
package webtest

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/codemode-go/codemode/client"
	"github.com/codemode-go/codemode/contract"
)

// pngTool is a contract whose tool codemode.chart returns a PNG as an
// array of byte values (as an image-making tool might), so that the
// program base64-encodes it with btoa for result.appendImage.
func pngTool(t *testing.T) (*contract.Contract, []byte) {
	img := image.NewRGBA(image.Rect(0, 0, 4, 3))
	for x := 0; x < 4; x++ {
		img.Set(x, x%3, color.RGBA{R: 200, G: uint8(40 * x), B: 10, A: 255})
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	pngBytes := buf.Bytes()
	tool, err := contract.NewRawTool("chart", "Draws a chart; returns PNG bytes.",
		json.RawMessage(`{"type":"object","properties":{},"additionalProperties":false}`),
		json.RawMessage(`{"type":"object","properties":{"bytes":{"type":"array","items":{"type":"integer"}}},"required":["bytes"],"additionalProperties":false}`), func(ctx context.Context, input json.RawMessage) (json.RawMessage, error) {
			ints := make([]int, len(pngBytes))
			for i, b := range pngBytes {
				ints[i] = int(b)
			}
			return json.Marshal(map[string]any{"bytes": ints})
		})
	if err != nil {
		t.Fatal(err)
	}
	c, err := contract.New(tool)
	if err != nil {
		t.Fatal(err)
	}
	return c, pngBytes
}

// Run runs the programs on rt.
func Run(t *testing.T, rt client.Executor) {
	c, pngBytes := pngTool(t)
	cl := client.New(rt, c)
	ctx := context.Background()
	run := func(t *testing.T, src string, opts client.RunOptions) *client.Outcome {
		t.Helper()
		out, err := cl.Run(ctx, src, opts)
		if err != nil {
			t.Fatal(err)
		}
		if out.Kind != client.Success {
			t.Fatalf("%s: %s\n%s", out.Error.Name, out.Error.Message, out.Error.Stack)
		}
		return out
	}
	text := func(out *client.Outcome) string {
		var parts []string
		for _, c := range out.Content {
			parts = append(parts, c.Text)
		}
		return strings.Join(parts, "\n")
	}
	encodingTests(t, run, text, pngBytes)
	randomAndTimerTests(t, cl, run, text)
	fetchTests(t, cl, text)
}

// runFunc runs a program that must succeed.
type runFunc func(t *testing.T, src string, opts client.RunOptions) *client.Outcome

// encodingTests exercise URLSearchParams, btoa, TextDecoder and structuredClone.
func encodingTests(t *testing.T, run runFunc, text func(*client.Outcome) string, pngBytes []byte) {
	t.Run("URLSearchParams query string", func(t *testing.T) {
		out := run(t, `export default async function ({ result }) {
  const url = new URL("https://api.example.com/v1/search");
  url.searchParams.set("q", "café & crème");
  url.searchParams.append("tag", "a b");
  url.searchParams.append("tag", "c/d");
  const params = new URLSearchParams({ page: "2", sort: "-date" });
  params.sort();
  result.appendText(url.href);
  result.appendText(params.toString());
  result.appendText([...url.searchParams.getAll("tag")].join("|"));
  result.appendText(new URL("../b?x#y", "https://h.example/a/c/d").href);
}`, client.RunOptions{})
		want := "https://api.example.com/v1/search?q=caf%C3%A9+%26+cr%C3%A8me&tag=a+b&tag=c%2Fd\npage=2&sort=-date\na b|c/d\nhttps://h.example/a/b?x#y"
		if got := text(out); got != want {
			t.Fatalf("got\n%s\nwant\n%s", got, want)
		}
	})

	t.Run("btoa of a generated PNG for appendImage", func(t *testing.T) {
		out := run(t, `export default async function ({ codemode, result }) {
  const { bytes } = await codemode.chart();
  let binary = "";
  for (const b of new Uint8Array(bytes)) binary += String.fromCharCode(b);
  result.appendImage({ data: btoa(binary), mimeType: "image/png" });
  result.appendText(String(atob(btoa(binary)).length));
}`, client.RunOptions{})
		if len(out.Content) != 2 || out.Content[0].Type != "image" || out.Content[0].Data != base64.StdEncoding.EncodeToString(pngBytes) {
			t.Fatalf("%+v", out.Content)
		}
		if out.Content[1].Text != fmt.Sprint(len(pngBytes)) {
			t.Fatalf("atob gave %s bytes, want %d", out.Content[1].Text, len(pngBytes))
		}
	})

	t.Run("TextDecoder of bytes", func(t *testing.T) {
		out := run(t, `export default async function ({ result }) {
  const bytes = new TextEncoder().encode("naïve ☃ 😀");
  const d = new TextDecoder();
  let streamed = "";
  for (let i = 0; i < bytes.length; i++) streamed += d.decode(bytes.subarray(i, i + 1), { stream: true });
  streamed += d.decode();
  result.appendText([bytes.length, new TextDecoder().decode(bytes), streamed,
    new TextDecoder().decode(new Uint8Array([0xEF, 0xBB, 0xBF, 0x41, 0xFF])),
    new TextDecoder("utf-8", { ignoreBOM: true }).decode(new Uint8Array([0xEF, 0xBB, 0xBF, 0x41])).length].join(","));
  try { new TextDecoder("utf-8", { fatal: true }).decode(new Uint8Array([0xC3])); } catch (e) { result.appendText(e.name); }
}`, client.RunOptions{})
		want := "15,naïve ☃ 😀,naïve ☃ 😀,A\uFFFD,2\nTypeError"
		if got := text(out); got != want {
			t.Fatalf("got %q want %q", got, want)
		}
	})

	t.Run("structuredClone of a nested result", func(t *testing.T) {
		out := run(t, `export default async function ({ result }) {
  const report = { when: new Date(0), tags: new Set(["a"]), byId: new Map([[1, { n: [1, 2] }]]), re: /x+/g, bytes: new Uint8Array([1, 2, 3]) };
  report.self = report;
  const copy = structuredClone(report);
  copy.byId.get(1).n.push(3);
  result.appendText(JSON.stringify([copy.self === copy, copy !== report, copy.when.getTime(), copy.tags.has("a"),
    report.byId.get(1).n.length, copy.byId.get(1).n.length, copy.re.source + copy.re.flags, Array.from(copy.bytes)]));
  try { structuredClone({ f() {} }); } catch (e) { result.appendText(e.name + " " + (e instanceof DOMException)); }
}`, client.RunOptions{})
		want := `[true,true,0,true,2,3,"x+g",[1,2,3]]` + "\nDataCloneError true"
		if got := text(out); got != want {
			t.Fatalf("got %q want %q", got, want)
		}
	})

}

// randomAndTimerTests exercise the seeded crypto stream and the timer limit.
func randomAndTimerTests(t *testing.T, cl *client.Client, run runFunc, text func(*client.Outcome) string) {
	ctx := context.Background()
	t.Run("crypto.randomUUID format and seeded replay", func(t *testing.T) {
		src := `export default async function ({ result }) {
  result.appendText(crypto.randomUUID());
  result.appendText(Array.from(crypto.getRandomValues(new Uint32Array(4))).join(","));
  result.appendText(String(Math.random()));
}`
		seed := []byte("0123456789abcdef")
		a := text(run(t, src, client.RunOptions{Seed: seed}))
		b := text(run(t, src, client.RunOptions{Seed: seed}))
		c := text(run(t, src, client.RunOptions{}))
		if a != b {
			t.Fatalf("one seed, two sequences:\n%s\n%s", a, b)
		}
		if a == c {
			t.Fatalf("a random seed repeated the fixed seed's values")
		}
		uuid := regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)
		if first := strings.SplitN(a, "\n", 2)[0]; !uuid.MatchString(first) {
			t.Fatalf("randomUUID gave %q", first)
		}
	})

	t.Run("setInterval counts against the timers", func(t *testing.T) {
		out := run(t, `export default async function ({ result }) {
  let n = 0;
  await new Promise((resolve) => { const h = setInterval(() => { if (++n === 3) { clearInterval(h); resolve(); } }, 1); });
  const c = new AbortController();
  let fired = 0;
  c.signal.addEventListener("abort", () => fired++, { once: true });
  c.abort();
  c.abort();
  const t = new EventTarget();
  t.addEventListener("ping", (e) => { fired += 10; e.preventDefault(); });
  const ok = t.dispatchEvent(new Event("ping", { cancelable: true }));
  result.appendText([n, fired, ok, c.signal.reason.name].join(","));
}`, client.RunOptions{})
		if got := text(out); got != "3,11,false,AbortError" {
			t.Fatalf("got %q", got)
		}
		out2, err := cl.Run(ctx, `export default async function () {
  for (let i = 0; i < 3; i++) setInterval(() => {}, 1000);
}`, client.RunOptions{Limits: client.Limits{MaxTimers: 2}})
		if err != nil || out2.Kind != client.ProgramFailed || !strings.Contains(out2.Error.Message, "maxTimers") {
			t.Fatalf("%+v %v", out2, err)
		}
	})

}

// fetchTests exercise fetch through the host's policy against a local server.
func fetchTests(t *testing.T, cl *client.Client, text func(*client.Outcome) string) {
	f := newFetchFixture(t, cl, text)
	fetchPolicyTests(t, f)
	fetchLimitTests(t, f)
}

// fetchFixture is a local server that records request headers, and a
// policy that allows it with a credential.
type fetchFixture struct {
	cl     *client.Client
	text   func(*client.Outcome) string
	srv    *httptest.Server
	host   string
	policy *client.FetchPolicy
	ctx    context.Context
	mu     sync.Mutex
	seen   []http.Header
}

func newFetchFixture(t *testing.T, cl *client.Client, text func(*client.Outcome) string) *fetchFixture {
	f := &fetchFixture{cl: cl, text: text, ctx: context.Background()}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.srv.Close)
	f.host = strings.TrimPrefix(f.srv.URL, "http://")
	f.policy = &client.FetchPolicy{
		Allow:            []string{f.host},
		Headers:          map[string]http.Header{f.host: {"Authorization": {"Bearer host-secret"}}},
		MaxResponseBytes: 1024,
		Timeout:          500 * time.Millisecond,
	}
	return f
}

func (f *fetchFixture) serve(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	f.seen = append(f.seen, r.Header.Clone())
	f.mu.Unlock()
	switch r.URL.Path {
	case "/json":
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"method":%q,"auth":%t,"q":%q}`, r.Method, r.Header.Get("Authorization") != "", r.URL.Query().Get("q"))
	case "/echo":
		body := new(bytes.Buffer)
		_, _ = body.ReadFrom(r.Body)
		w.Header().Set("X-Length", fmt.Sprint(body.Len()))
		_, _ = w.Write(body.Bytes())
	case "/big":
		_, _ = w.Write(bytes.Repeat([]byte("x"), 4096))
	case "/slow":
		select {
		case <-time.After(3 * time.Second):
		case <-r.Context().Done():
		}
		fmt.Fprint(w, "late")
	case "/redirect":
		http.Redirect(w, r, "/json", http.StatusFound)
	default:
		http.NotFound(w, r)
	}
}

// runWith runs src (ORIGIN is the server's origin) with policy p,
// recording telemetry events in events when it is not nil.
func (f *fetchFixture) runWith(t *testing.T, src string, p *client.FetchPolicy, events *[]client.Event) *client.Outcome {
	t.Helper()
	opts := client.RunOptions{Fetch: p}
	if events != nil {
		var emu sync.Mutex
		opts.OnTelemetry = func(e client.Event) {
			emu.Lock()
			*events = append(*events, e)
			emu.Unlock()
		}
	}
	out, err := f.cl.Run(f.ctx, strings.ReplaceAll(src, "ORIGIN", f.srv.URL), opts)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// success is the text of a successful outcome.
func (f *fetchFixture) success(t *testing.T, out *client.Outcome) string {
	t.Helper()
	if out.Kind != client.Success {
		t.Fatalf("%s: %s\n%s", out.Error.Name, out.Error.Message, out.Error.Stack)
	}
	return f.text(out)
}

// fetchPolicyTests: what the policy allows and denies.
func fetchPolicyTests(t *testing.T, f *fetchFixture) {
	t.Run("fetch allowed, credentials added by the host", func(t *testing.T) {
		var events []client.Event
		out := f.runWith(t, `export default async function ({ result }) {
  const r = await fetch("ORIGIN/json?q=" + encodeURIComponent("a b"), { headers: { Authorization: "Bearer program-guess", "X-Trace": "1" } });
  const body = await r.json();
  result.appendText([r.status, r.ok, r.headers.get("content-type"), body.method, body.auth, body.q, r.headers.has("authorization")].join(","));
  const e = await fetch(new Request("ORIGIN/echo", { method: "POST", body: JSON.stringify({ hi: 1 }) }));
  result.appendText(e.headers.get("x-length") + " " + (await e.text()));
  const redirected = await fetch("ORIGIN/redirect");
  result.appendText(redirected.redirected + " " + redirected.url.endsWith("/json"));
}`, f.policy, &events)
		got := f.success(t, out)
		want := "200,true,application/json,GET,true,a b,false\n8 {\"hi\":1}\ntrue true"
		if got != want {
			t.Fatalf("got %q want %q", got, want)
		}
		f.mu.Lock()
		first := f.seen[0]
		f.mu.Unlock()
		if first.Get("Authorization") != "Bearer host-secret" || first.Get("X-Trace") != "1" {
			t.Fatalf("server saw %v", first)
		}
		var started int
		for _, e := range events {
			if e.Kind == client.EventToolCallStarted && e.Namespace == "@web" && e.Tool == "fetch" {
				started++
				if strings.Contains(string(e.Input), "host-secret") {
					t.Fatalf("telemetry shows the host's credential: %s", e.Input)
				}
			}
		}
		if started != 3 {
			t.Fatalf("%d fetch tool-call events, want 3", started)
		}
	})

	t.Run("fetch denied", func(t *testing.T) {
		src := `export default async function ({ result }) {
  try { await fetch("https://example.com/"); } catch (e) { result.appendText((e instanceof TypeError) + " " + e.message); }
  try { await fetch("ORIGIN/json", { method: "DELETE" }); } catch (e) { result.appendText((e instanceof TypeError) + " " + e.message); }
}`
		got := f.success(t, f.runWith(t, src, &client.FetchPolicy{Allow: []string{f.host}, Methods: []string{"GET"}}, nil))
		if !strings.Contains(got, "true fetch https://example.com/: the origin https://example.com is not allowed by the host's fetch policy") ||
			!strings.Contains(got, "true fetch "+f.srv.URL+"/json: the method DELETE is not allowed") {
			t.Fatalf("got %q", got)
		}
		off := f.success(t, f.runWith(t, src, nil, nil))
		if !strings.Contains(off, "true fetch https://example.com/: the host's fetch policy allows no requests") {
			t.Fatalf("without a policy: %q", off)
		}
	})
}

// fetchLimitTests: the policy's request, size and time limits.
func fetchLimitTests(t *testing.T, f *fetchFixture) {
	t.Run("fetch requests per execution", func(t *testing.T) {
		src := `export default async function ({ result }) {
  let ok = 0;
  for (let i = 0; i < 5; i++) {
    try { await fetch("ORIGIN/json"); ok++; } catch (e) { result.appendText(e.name + ": " + e.message); }
  }
  result.appendText("sent " + ok);
}`
		capped := &client.FetchPolicy{Allow: []string{f.host}, MaxRequests: 3}
		got := f.success(t, f.runWith(t, src, capped, nil))
		want := "TypeError: fetch " + f.srv.URL + "/json: this execution already sent 3 requests, the most the host's fetch policy allows (MaxRequests)"
		if strings.Count(got, want) != 2 || !strings.HasSuffix(got, "sent 3") {
			t.Fatalf("got %q", got)
		}
		// The cap is per execution: the next one starts at zero.
		if got := f.success(t, f.runWith(t, src, capped, nil)); !strings.HasSuffix(got, "sent 3") {
			t.Fatalf("second execution: %q", got)
		}
	})

	t.Run("fetch size and time limits", func(t *testing.T) {
		got := f.success(t, f.runWith(t, `export default async function ({ result }) {
  try { await fetch("ORIGIN/big"); } catch (e) { result.appendText(e.name + ": " + e.message); }
  try { await fetch("ORIGIN/slow"); } catch (e) { result.appendText(e.name + ": " + e.message); }
}`, f.policy, nil))
		if !strings.Contains(got, "TypeError: fetch "+f.srv.URL+"/big: the response body exceeds the host's fetch policy limit of 1024 bytes") ||
			!strings.Contains(got, "TypeError: fetch "+f.srv.URL+"/slow: no complete response within 500ms") {
			t.Fatalf("got %q", got)
		}
	})

	t.Run("AbortSignal.timeout around fetch", func(t *testing.T) {
		slow := *f.policy
		slow.Timeout = 5 * time.Second
		got := f.success(t, f.runWith(t, `export default async function ({ result }) {
  const started = Date.now();
  try {
    await fetch("ORIGIN/slow", { signal: AbortSignal.timeout(50) });
    result.appendText("no abort");
  } catch (e) {
    result.appendText(e.name + " " + (e instanceof DOMException));
  }
}`, &slow, nil))
		if got != "TimeoutError true" {
			t.Fatalf("got %q", got)
		}
	})
}
