package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/codemode-go/codemode/codetool"
	"github.com/codemode-go/codemode/durable"
	"github.com/codemode-go/codemode/durable/store"
	"github.com/codemode-go/codemode/internal/termtext"
)

// foldAt is how many characters of one string argument a terminal shows
// before folding the rest (--full shows all).
const foldAt = 300

// argText renders a call's arguments for a person: indented JSON, one key
// per line in the recorded order (duplicates kept), control characters
// escaped. Strings longer than limit characters (0: no limit) show their
// first limit characters and how many are left out, and folded is true.
// Arguments that are not JSON are printed whole.
func argText(args json.RawMessage, limit int) (text string, folded bool) {
	w := argWriter{dec: json.NewDecoder(bytes.NewReader(args)), limit: limit}
	w.dec.UseNumber()
	if err := w.value(""); err != nil {
		return escapeControls(string(args)), false
	}
	return w.b.String(), w.folded
}

type argWriter struct {
	dec    *json.Decoder
	b      strings.Builder
	limit  int
	folded bool
}

// value writes the next JSON value, its nested lines indented under indent.
func (w *argWriter) value(indent string) error {
	tok, err := w.dec.Token()
	if err != nil {
		return err
	}
	switch t := tok.(type) {
	case json.Delim:
		return w.container(t, indent)
	case string:
		w.str(t)
	case json.Number:
		w.b.WriteString(t.String())
	case bool:
		w.b.WriteString(strconv.FormatBool(t))
	case nil:
		w.b.WriteString("null")
	}
	return nil
}

// container writes an object or array whose opening delimiter was read.
func (w *argWriter) container(open json.Delim, indent string) error {
	end := "]"
	if open == '{' {
		end = "}"
	}
	if !w.dec.More() {
		w.b.WriteString(string(open) + end)
		_, err := w.dec.Token()
		return err
	}
	w.b.WriteString(string(open))
	for first := true; w.dec.More(); first = false {
		if !first {
			w.b.WriteString(",")
		}
		w.b.WriteString("\n" + indent + "  ")
		if open == '{' {
			key, err := w.dec.Token()
			if err != nil {
				return err
			}
			w.b.WriteString(quoteJSON(fmt.Sprint(key)) + ": ")
		}
		if err := w.value(indent + "  "); err != nil {
			return err
		}
	}
	w.b.WriteString("\n" + indent + end)
	_, err := w.dec.Token()
	return err
}

// str writes a string value, folded when long.
func (w *argWriter) str(s string) {
	r := []rune(s)
	if w.limit == 0 || len(r) <= w.limit {
		w.b.WriteString(quoteJSON(s))
		return
	}
	w.folded = true
	fmt.Fprintf(&w.b, "%s… (%d more characters)", quoteJSON(string(r[:w.limit])), len(r)-w.limit)
}

// quoteJSON quotes s as a JSON string ("<", ">" and "&" as they are), the
// characters that hide or reorder text escaped as JSON escapes
// (termtext.Quote), so that what is printed stays JSON of the same value.
func quoteJSON(s string) string { return termtext.Quote(s) }

// awaiting is how the commands that show a pause print its pending actions
// and the commands that decide them.
type awaiting struct {
	journal string // " --journal FILE --name NAME" as the run was given, or ""
	tools   string // " --tools FILE" as the run was given
	// note says what the placeholders of tools stand for, when they are
	// those of the run's recorded configuration (recordedFlags).
	note string
	full bool // --full: every argument in full
	// goProgram: a Go program with tools of its own started the run
	// (durable.GoProgramConfiguration), so only it approves or answers.
	goProgram bool
}

// forRun is a as it applies to execution e: when the command was not
// given the tools flags, those e's recorded configuration says it used.
func (a awaiting) forRun(e *store.Execution) awaiting {
	a.goProgram = durable.StartedByGoProgram(e.Configuration)
	if a.tools == unknownTools {
		if flags, note := recordedFlags(e.Configuration); flags != "" {
			a.tools, a.note = flags, note
		}
	}
	return a
}

// print prints the pending actions of execution id with their arguments
// and, when every argument was shown in full, the approve command carrying
// the digest of what was shown; when some were folded it offers no
// approval and says how to see them all.
func (a awaiting) print(w io.Writer, id string, pending []codetool.Pending) {
	a.printActions(w, id, pending)
	if a.goProgram {
		return
	}
	if a.note != "" {
		fmt.Fprintln(w, "  "+a.note)
	} else if a.tools == unknownTools {
		fmt.Fprintln(w, "  (FILE: the tools file the run used; a run over MCP servers or OpenAPI documents takes the --mcp, --config or --openapi flags it used instead)")
	}
}

// unknownTools stands for the tools flags of a run in a hint, when the
// command was not given them (the journal keeps their digests, not their
// paths).
const unknownTools = " --tools FILE"

// printActions lists the pending actions and the commands that decide them.
func (a awaiting) printActions(w io.Writer, id string, pending []codetool.Pending) {
	anyFolded := false
	for _, p := range pending {
		limit := foldAt
		if a.full {
			limit = 0
		}
		text, folded := argText(p.Args, limit)
		anyFolded = anyFolded || folded
		fmt.Fprintf(w, "  action %d: %s%s\n", p.Seq, uncertainMark(p.Uncertain), escapeControls(p.Connector+"."+p.Method))
		for _, l := range strings.Split(text, "\n") {
			fmt.Fprintln(w, "    "+l)
		}
	}
	if anyFolded {
		fmt.Fprintf(w, "  some arguments are folded; to see them all and approve: codemode pending%s --full %s\n", a.journal, id)
	} else if a.goProgram {
		// The command line's tools would be others under the same names:
		// it refuses (durable.ErrConfigurationChanged).
		fmt.Fprintf(w, "  a Go program with tools of its own started this run: approve it there (durable.Handle.ApproveShown with %q, or Resolve for an uncertain action); the command line refuses to approve it, as its tools would be others under the same names\n", durable.ShownDigest(pending))
	} else if n := countUncertain(pending); n > 0 {
		// An uncertain action's host died between running it and recording
		// it: a person says whether it happened.
		happened, reject, which := "N", "N", " (N: each one's action number)"
		if n == 1 {
			happened, which = strconv.FormatUint(uncertainSeq(pending), 10), ""
		}
		if n == 1 {
			reject = happened // rejecting any pending action fails the run
		}
		fmt.Fprintf(w, "  uncertain: %d action(s) may have run already; answer each:\n", n)
		fmt.Fprintf(w, "  it happened:  codemode happened%s%s %s %s [--result JSON]%s (JSON: the result it returned, which the program receives)\n", a.journal, a.tools, id, happened, which)
		fmt.Fprintf(w, "  run again:    codemode approve%s%s %s --shown %s\n", a.journal, a.tools, id, durable.ShownDigest(pending))
		fmt.Fprintf(w, "  fail the run: codemode reject%s %s %s\n", a.journal, id, reject)
		return
	} else {
		fmt.Fprintf(w, "  approve %s: codemode approve%s%s %s --shown %s\n", these(len(pending)), a.journal, a.tools, id, durable.ShownDigest(pending))
	}
	if len(pending) == 1 {
		fmt.Fprintf(w, "  reject it (ends the run): codemode reject%s %s %d\n", a.journal, id, pending[0].Seq)
	} else {
		fmt.Fprintf(w, "  reject one (ends the run): codemode reject%s %s N (N: its action number)\n", a.journal, id)
	}
}

// journalHint repeats the journal flags a command was given for the
// commands a pause suggests ("" when the journal came from the
// environment).
func journalHint(jf *journalFlags) string {
	s := ""
	if jf != nil && !jf.fromEnv {
		s = " --journal " + shellQuote(redactDSN(jf.path))
	}
	if jf != nil && jf.name != "default" {
		s += " --name " + shellQuote(jf.name)
	}
	return s
}

// these is "this action" or "these N actions".
func these(n int) string {
	if n == 1 {
		return "this action"
	}
	return fmt.Sprintf("these %d actions", n)
}

// countUncertain is how many of pending are uncertain (their host died
// between running them and recording it).
func countUncertain(pending []codetool.Pending) int {
	n := 0
	for _, p := range pending {
		if p.Uncertain {
			n++
		}
	}
	return n
}

// uncertainSeq is the action number of the first uncertain action of
// pending, or 0 when there is none.
func uncertainSeq(pending []codetool.Pending) uint64 {
	for _, p := range pending {
		if p.Uncertain {
			return p.Seq
		}
	}
	return 0
}

// awaitsWhat says what a pause with these pending actions waits for: a
// person's approval of them or, when some are uncertain, an answer about
// those (did it happen?), the others waiting with them (approved before
// the host died, or awaiting approval: codetool.Pending does not say
// which).
func awaitsWhat(pending []codetool.Pending) string {
	u := countUncertain(pending)
	if u == 0 {
		return fmt.Sprintf("approval of %d action(s)", len(pending))
	}
	s := fmt.Sprintf("an answer about %d uncertain action(s) (did it happen? its host died before recording it)", u)
	if rest := len(pending) - u; rest > 0 {
		s += fmt.Sprintf("; %d other action(s) wait with it", rest)
	}
	return s
}
