package journalui

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/codemode-go/codemode/durable"
	"github.com/codemode-go/codemode/durable/store"
)

// flat lists a tree's nodes as "key=kind:text" lines, depth-first, long
// strings as "key=folded:N", binary as "key=binary:summary".
func flat(n *node) []string {
	var out []string
	var walk func(n node, depth int)
	walk = func(n node, depth int) {
		line := strings.Repeat(" ", depth) + n.Key + "=" + n.Kind
		switch {
		case n.Binary != "":
			line += ":binary:" + n.Binary
		case n.Preview != "":
			line += ":folded:" + strconv.Itoa(n.Size/10000)
		case n.Children == nil:
			line += ":" + n.Text
		}
		out = append(out, line)
		for _, c := range n.Children {
			walk(c, depth+1)
		}
	}
	if n != nil {
		walk(*n, 0)
	}
	return out
}

// The page's tree shows every key in the recorded order, duplicates
// included, folds long strings without losing them, summarizes base64 as
// binary, and shows text that is not JSON whole.
func TestTreeShowsEveryKey(t *testing.T) {
	blob := base64.StdEncoding.EncodeToString([]byte(strings.Repeat("\x00\x01binary", 100)))
	long := strings.Repeat("pad ", 5000)
	tests := []struct {
		name, json string
		want       []string
	}{
		{"order and duplicates", `{"to":"alice","memo":"m","to":"mallory"}`, []string{`=object`, ` "to"=string:"alice"`, ` "memo"=string:"m"`, ` "to"=string:"mallory"`}},
		{"nested and empty", `{"a":[1,true,null,{}],"b":[]}`, []string{`=object`, ` "a"=array`, `  =number:1`, `  =boolean:true`, `  =null:null`, `  =object`, ` "b"=array`}},
		{"long string folded", `{"memo":"` + long + `","to":"mallory"}`, []string{`=object`, ` "memo"=string:folded:2`, ` "to"=string:"mallory"`}},
		{"binary", `{"file":"` + blob + `"}`, []string{`=object`, ` "file"=string:binary:binary data (base64): 800 bytes, SHA-256 ` + sha(strings.Repeat("\x00\x01binary", 100))}},
		{"control characters escaped", `{"k\u202e":"a\u001b[2J"}`, []string{`=object`, ` "k\u202e"=string:"a\u001b[2J"`}},
		{"not JSON", `{"to":`, []string{`=string:"{\"to\":"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := flat(tree(json.RawMessage(tt.json)))
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("tree(%.60s):\n%s\nwant:\n%s", tt.json, strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}
	// A folded string keeps all of its text.
	n := tree(json.RawMessage(`{"memo":"` + long + `"}`))
	if m := n.Children[0]; m.Size != len(long) || m.Text != `"`+long+`"` || !strings.HasPrefix(m.Text, m.Preview) {
		t.Errorf("the folded memo: size %d, text of %d characters", m.Size, len(m.Text))
	}
}

func sha(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

func TestTitleIsTheFirstCommentOrStatement(t *testing.T) {
	tests := []struct{ code, want string }{
		{"async () => {\n  // File one issue per release\n  for (;;) {}\n}", "File one issue per release"},
		{"/* Weekly report */\nawait x();", "Weekly report"},
		{"async () => { console.log(\"reading\"); return 1 }", `console.log("reading");`},
		{"export default async function main() {\n  const a = await github.list({});\n}", "const a = await github.list({});"},
		{"await github.create_issue({ title: \"" + strings.Repeat("x", 100) + "\" })", "await github.create_issue({ title: \"" + strings.Repeat("x", 44) + "…"},
		{"\n\n", "(empty program)"},
	}
	for _, tt := range tests {
		if got := title(tt.code); got != tt.want {
			t.Errorf("title(%q) = %q, want %q", tt.code, got, tt.want)
		}
	}
}

// A failed call's error is shown as the program saw it, name first.
func TestEntryOfNamesTheError(t *testing.T) {
	for _, c := range []struct {
		l    store.Entry
		want string
	}{
		{store.Entry{State: store.EntryError, Error: "HTTP 404 Not Found: GET /pets/9", ErrorName: "HTTPError"}, "HTTPError: HTTP 404 Not Found: GET /pets/9"},
		{store.Entry{State: store.EntryError, Error: "upstream is down"}, "upstream is down"},
		{store.Entry{State: store.EntryError, Error: "rejected by user"}, "rejected by user"},
	} {
		if got := entryOf(c.l).Error; got != c.want {
			t.Errorf("entryOf(%+v).Error = %q, want %q", c.l, got, c.want)
		}
	}
}

// An orphaned run's line says who can resume it: a Go program's run is
// resumed from that program, another by a page or codemode resume.
func TestSummaryOfAnOrphan(t *testing.T) {
	old := time.Now().Add(-time.Hour).UnixMilli()
	goRun := &store.Execution{ID: "exec_1", Status: store.StatusRunning, LeaseUntil: old, Configuration: durable.GoProgramConfiguration()}
	cliRun := &store.Execution{ID: "exec_2", Status: store.StatusRunning, LeaseUntil: old, Configuration: map[string]string{"tools file": "sha256:00"}}
	if got := summary(goRun); !strings.Contains(got, "from the Go program that started it") || strings.Contains(got, "codemode resume") {
		t.Errorf("a Go program's orphan: %q", got)
	}
	if got := summary(cliRun); !strings.Contains(got, "codemode resume exec_2") {
		t.Errorf("a command line's orphan: %q", got)
	}
}
