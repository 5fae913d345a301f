package contract_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/netip"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/codemode-go/codemode/contract"
)

// ticketID decodes itself and refuses what does not start with "T-"; it
// writes its own JSON, so its schema is any JSON value.
type ticketID string

func (id *ticketID) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	if !strings.HasPrefix(s, "T-") {
		return fmt.Errorf("ticket id %q does not start with T-", s)
	}
	*id = ticketID(s)
	return nil
}

func (id ticketID) MarshalJSON() ([]byte, error) { return json.Marshal(string(id)) }

type scheduleNode struct {
	Due   time.Time  `json:"due"`
	Until *time.Time `json:"until"`
}

type scheduleIn struct {
	Node    scheduleNode         `json:"node"`
	Dues    []time.Time          `json:"dues"`
	ByName  map[string]time.Time `json:"byName"`
	Addr    netip.Addr           `json:"addr"`
	Hosts   map[netip.Addr]int   `json:"hosts"`
	Count   int64                `json:"count"`
	Small   int8                 `json:"small"`
	Ratio   float32              `json:"ratio"`
	Quoted  int64                `json:"quoted,string"`
	Wait    time.Duration        `json:"wait"`
	Ticket  ticketID             `json:"ticket"`
	Failure error                `json:"failure"`
}

// validSchedule is a scheduleIn input every part of which decodes; a case
// replaces one member.
const validSchedule = `{"node":{"due":"2026-01-02T15:04:05Z","until":null},"dues":["2026-01-02T15:04:05+01:00"],` +
	`"byName":{"a":"2026-01-02T15:04:05.5Z"},"addr":"192.0.2.1","hosts":{"::1":1},"count":9223372036854775807,"small":-128,` +
	`"ratio":3.4e38,"quoted":"-9223372036854775808","wait":1000000000,"ticket":"T-1","failure":null}`

// withMember is validSchedule with the member name set to value (JSON).
func withMember(t *testing.T, name, value string) string {
	t.Helper()
	var m map[string]json.RawMessage
	if err := json.Unmarshal([]byte(validSchedule), &m); err != nil {
		t.Fatal(err)
	}
	m[name] = json.RawMessage(value)
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestTypedToolRejectsInputItsGoTypeCannotDecode(t *testing.T) {
	var calls atomic.Int32
	tool, err := contract.NewTool("schedule", "Schedule things.", func(ctx context.Context, in scheduleIn) (string, error) {
		calls.Add(1)
		return in.Node.Due.Format(time.RFC3339), nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if out, err := tool.Call(context.Background(), json.RawMessage(validSchedule)); err != nil || string(out) != `"2026-01-02T15:04:05Z"` {
		t.Fatalf("Call(valid input) = %s, %v", out, err)
	}
	for _, tc := range []struct {
		label, member, value string
		want                 []string // the lines, each a prefix
	}{
		{"a date without a time", "node", `{"due":"2026-01-01","until":null}`,
			[]string{`/node/due: got "2026-01-01", want an RFC 3339 date-time such as "2026-01-02T15:04:05Z"`}},
		{"lower-case t and z, which RFC 3339 allows", "node", `{"due":"2026-01-02t15:04:05z","until":null}`,
			[]string{`/node/due: got "2026-01-02t15:04:05z", want an RFC 3339 date-time`}},
		{"a leap second, which RFC 3339 allows", "node", `{"due":"2016-12-31T23:59:60Z","until":null}`,
			[]string{`/node/due: got "2016-12-31T23:59:60Z", want an RFC 3339 date-time`}},
		{"a pointer's date-time", "node", `{"due":"2026-01-02T15:04:05Z","until":"tomorrow"}`,
			[]string{`/node/until: got "tomorrow", want an RFC 3339 date-time`}},
		{"an array element", "dues", `["2026-01-02T15:04:05Z","2026-13-01T00:00:00Z"]`,
			[]string{`/dues/1: got "2026-13-01T00:00:00Z", want an RFC 3339 date-time`}},
		{"a map value", "byName", `{"a~b":"noon"}`,
			[]string{`/byName/a~0b: got "noon", want an RFC 3339 date-time`}},
		{"a TextUnmarshaler", "addr", `"1.2.3"`,
			[]string{`/addr: got "1.2.3", which netip.Addr does not decode: ParseAddr("1.2.3"): IPv4 address too short`}},
		{"a map key", "hosts", `{"::1":1,"localhost":2}`,
			[]string{`/hosts/localhost: the name "localhost" is not a key netip.Addr decodes`}},
		{"an int64 beyond its range", "count", `9223372036854775808`,
			[]string{`/count: got 9223372036854775808, want an integer from -9223372036854775808 to 9223372036854775807 (int64)`}},
		{"an integer with a fraction", "small", `1.0`,
			[]string{`/small: got 1.0, want an integer from -128 to 127 (int8), in digits without a fraction or exponent`}},
		{"a float32 beyond its range", "ratio", `1e39`,
			[]string{`/ratio: got 1e39, want a number within float32's range`}},
		{"the string option", "quoted", `"9223372036854775808"`,
			[]string{`/quoted: got "9223372036854775808", want an integer from -9223372036854775808 to 9223372036854775807 (int64)`}},
		{"a duration beyond int64", "wait", `1e19`,
			[]string{`/wait: got 1e19, want an integer from -9223372036854775808 to 9223372036854775807 (time.Duration)`}},
		{"a json.Unmarshaler", "ticket", `"X-1"`,
			[]string{`/ticket: got "X-1", which contract_test.ticketID does not decode: ticket id "X-1" does not start with T-`}},
		{"a non-empty interface", "failure", `"boom"`,
			[]string{`/failure: got "boom", which error does not decode: json: cannot unmarshal string into Go value of type error`}},
	} {
		t.Run(tc.label, func(t *testing.T) {
			input := json.RawMessage(withMember(t, tc.member, tc.value))
			calls.Store(0)
			_, err := tool.Call(context.Background(), input)
			checkDecodeFailure(t, "Call", err, tc.want)
			checkDecodeFailure(t, "CheckInput", tool.CheckInput(input), tc.want)
			// Handle skips CheckInput: the handler's own decoding fails alike.
			_, err = tool.Handle(context.Background(), input)
			checkDecodeFailure(t, "Handle", err, tc.want)
			if n := calls.Load(); n != 0 {
				t.Errorf("the handler ran %d times", n)
			}
		})
	}
}

func TestTypedToolReportsEveryDecodeFailure(t *testing.T) {
	tool, err := contract.NewTool("schedule", "Schedule things.", func(ctx context.Context, in scheduleIn) (string, error) { return "", nil })
	if err != nil {
		t.Fatal(err)
	}
	input := strings.Replace(withMember(t, "dues", `["a","2026-01-02T15:04:05Z","b"]`), `"addr":"192.0.2.1"`, `"addr":"x"`, 1)
	err = tool.CheckInput(json.RawMessage(input))
	checkDecodeFailure(t, "CheckInput", err, []string{`/dues/0: got "a"`, `/dues/2: got "b"`, `/addr: got "x"`})
}

// checkDecodeFailure checks that err is schedule's input failure whose
// lines start with want, in order.
func checkDecodeFailure(t *testing.T, what string, err error, want []string) {
	t.Helper()
	var tv *contract.ValidationError
	if !errors.As(err, &tv) {
		t.Fatalf("%s = %v, want a *ValidationError", what, err)
	}
	if tv.Tool != "schedule" || tv.Phase != "input" {
		t.Errorf("%s: Tool, Phase = %q, %q; want schedule, input", what, tv.Tool, tv.Phase)
	}
	ok := len(tv.Lines) == len(want)
	for i := 0; ok && i < len(want); i++ {
		ok = strings.HasPrefix(tv.Lines[i], want[i])
	}
	if !ok {
		t.Errorf("%s: Lines =\n%s\nwant lines starting\n%s", what, strings.Join(tv.Lines, "\n"), strings.Join(want, "\n"))
	}
}

// treeNode is a recursive type: a program can nest it as deep as JSON
// goes.
type treeNode struct {
	At   time.Time  `json:"at"`
	Name string     `json:"name"`
	Kids []treeNode `json:"kids"`
}

// nestedTree is depth treeNodes, each the only kid of the one before,
// the innermost of which has a bad date-time and a name of blob bytes.
func nestedTree(depth, blob int) json.RawMessage {
	var b strings.Builder
	for range depth {
		b.WriteString(`{"at":"2026-01-02T15:04:05Z","name":"","kids":[`)
	}
	b.WriteString(`{"at":"bad","name":"` + strings.Repeat("x", blob) + `","kids":[]}`)
	b.WriteString(strings.Repeat(`]}`, depth))
	return json.RawMessage(b.String())
}

// The search for decode failures decodes each value it enters again: on
// a deep input around a large string it stops within a budget (before,
// 1,000 levels around 4 MiB kept the host busy for two minutes) and
// reports the failure at the deepest value it reached; a small deep input
// is searched to the end.
func TestTypedToolBoundsTheSearchForDecodeFailures(t *testing.T) {
	tool, err := contract.NewTool("tree", "Walk a tree.", func(ctx context.Context, in treeNode) (int, error) { return 0, nil })
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		label       string
		depth, blob int
		located     bool // whether the line names the innermost node
	}{
		{"small and deep", 100, 0, true},
		{"deep around a large string", 300, 1 << 20, false},
	} {
		t.Run(tc.label, func(t *testing.T) {
			var tv *contract.ValidationError
			if err := tool.CheckInput(nestedTree(tc.depth, tc.blob)); !errors.As(err, &tv) {
				t.Fatalf("CheckInput = %v, want a *ValidationError", err)
			}
			if len(tv.Lines) != 1 {
				t.Fatalf("Lines = %q, want one", tv.Lines)
			}
			innermost := strings.Repeat("/kids/0", tc.depth) + "/at: got \"bad\""
			if got := strings.HasPrefix(tv.Lines[0], innermost); got != tc.located {
				t.Errorf("line %.200q names the innermost node: %v, want %v", tv.Lines[0], got, tc.located)
			}
			if !tc.located && !strings.Contains(tv.Lines[0], "does not decode") {
				t.Errorf("line %.200q does not say what does not decode", tv.Lines[0])
			}
		})
	}
}

// A typed tool's input that breaks its schema and holds values its Go type
// refuses is reported whole, in one *ValidationError: the schema's
// failures, then each value the type refuses where the schema found
// nothing wrong, so that a program mends its call in one round trip
// (before, the bad date-time came only once the missing members were
// there). A value the schema already refused is not reported twice.
func TestTypedToolReportsSchemaAndDecodeFailuresTogether(t *testing.T) {
	tool, err := contract.NewTool("schedule", "Schedule things.", func(ctx context.Context, in scheduleIn) (string, error) { return "", nil })
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		label, input string
		want         []string // the lines, each a prefix
	}{
		{"missing members and a bad date-time", `{"node":{"due":"yesterday","until":null}}`,
			[]string{`/: missing properties`, `/node/due: got "yesterday", want an RFC 3339 date-time`}},
		{"a member of the wrong type, reported once", strings.Replace(withMember(t, "count", `"many"`), `"addr":"192.0.2.1"`, `"addr":"x"`, 1),
			[]string{`/count: got string, want integer`, `/addr: got "x", which netip.Addr does not decode`}},
		{"a bad member of a nullable struct, reported once", withMember(t, "node", `{"due":"yesterday","until":5}`),
			[]string{`/node/until: 'anyOf' failed`, `/node/until: got number, want string`, `/node/until: got number, want null`, `/node/due: got "yesterday"`}},
	} {
		t.Run(tc.label, func(t *testing.T) {
			checkDecodeFailure(t, "CheckInput", tool.CheckInput(json.RawMessage(tc.input)), tc.want)
		})
	}
}
