package main

import (
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"time"
)

// The lines between which -markdown writes the table; the rest of the file
// is left as it is.
const (
	beginMarker = "<!-- sidebyside:begin -->"
	endMarker   = "<!-- sidebyside:end -->"
)

// machine is what the table says about where and when it was measured.
type machine struct {
	when      time.Time
	load      string // the load average at the start
	rounds    int
	reference string // the reference's checkout, or ""
}

// referenceText names the reference and its commit (when git can tell),
// or says that the run left it out.
func (m machine) referenceText() string {
	if m.reference == "" {
		return "The reference was not run."
	}
	rev, err := exec.Command("git", "-C", m.reference, "rev-parse", "--short", "HEAD").Output()
	at := ""
	if err == nil {
		at = " at " + strings.TrimSpace(string(rev))
	}
	return "The reference is torkbot/code-mode" + at + " (its Host Node runtime; a clone built with `npm install && npm run build`, Node.js 24 first on PATH)."
}

// columnNames are the table's headings for the contenders.
var columnNames = map[string]string{
	"quickjs":           "QuickJS, sandbox (default)",
	"quickjs-inprocess": "QuickJS, in process",
	"node":              "Node.js",
	"reference":         "reference",
}

// markdownTable renders the run as the Markdown that -markdown writes: a
// paragraph naming the machine, the date and the method, then the table of
// medians with each contender's ratio to base.
func markdownTable(m machine, cs []contender, table []row, res results, base string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Written by `go run ./bench/sidebyside -markdown docs/speed.md` (with `-reference PATH` for the reference) on %s UTC:\n", m.when.Format("2006-01-02 15:04"))
	fmt.Fprintf(&b, "%d CPUs (%s), %s/%s, %s, %s at the start. Every execution sends a fresh program source; contenders take\n", runtime.NumCPU(), cpuModel(), runtime.GOOS, runtime.GOARCH, runtime.Version(), m.load)
	fmt.Fprintf(&b, "turns in a rotating order, medians of %d rounds shown. %s x: times faster than %s; above 1 is better.\n\n", m.rounds, m.referenceText(), heading(base))
	b.WriteString("| figure |")
	for _, c := range cs {
		fmt.Fprintf(&b, " %s |", heading(c.name()))
	}
	b.WriteString("\n|" + strings.Repeat(" --- |", len(cs)+1) + "\n")
	for _, r := range table {
		fmt.Fprintf(&b, "| %s |", r.title)
		for _, c := range cs {
			cell := "—"
			if m := res[r.key][c.name()]; len(m) > 0 {
				cell = quantity(r, median(m))
			}
			if c.name() != base && hasRatio(res, r, c.name(), base) {
				cell += fmt.Sprintf(" (%.2fx)", ratio(res, r, c.name(), base))
			}
			fmt.Fprintf(&b, " %s |", cell)
		}
		b.WriteString("\n")
	}
	if lines := goalLines(table, res); len(lines) > 0 {
		b.WriteString("\nIssue 33's goals, as this run reads them (x: times the other's time or rate):\n\n")
		for _, l := range lines {
			fmt.Fprintf(&b, "- %s\n", l)
		}
	}
	return b.String()
}

// heading is a contender's column heading.
func heading(name string) string {
	if h, ok := columnNames[name]; ok {
		return h
	}
	return name
}

// quantity renders one median with its unit, as the table shows it.
func quantity(r row, v float64) string {
	switch r.unit {
	case "us":
		return grouped(v) + " µs"
	case "B/exec":
		if math.Abs(v) >= 1024 {
			return fmt.Sprintf("%+.2f KiB", v/1024)
		}
		return fmt.Sprintf("%+.0f bytes", v)
	case "ms":
		if v < 10 {
			return strconv.FormatFloat(v, 'f', 2, 64) + " ms"
		}
	case "x":
		return strconv.FormatFloat(v, 'f', 2, 64) + "x"
	}
	return grouped(v) + " " + r.unit
}

// grouped renders v rounded to a whole number, thousands separated by
// commas.
func grouped(v float64) string {
	digits := strconv.FormatFloat(math.Abs(math.Round(v)), 'f', 0, 64)
	var b strings.Builder
	if v < 0 && digits != "0" {
		b.WriteByte('-')
	}
	for i, d := range digits {
		if i > 0 && (len(digits)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(d)
	}
	return b.String()
}

// cpuModel is the processor's model name from /proc/cpuinfo, or "CPU
// model unknown".
func cpuModel() string {
	raw, err := os.ReadFile("/proc/cpuinfo")
	if err == nil {
		for _, l := range strings.Split(string(raw), "\n") {
			if k, v, ok := strings.Cut(l, ":"); ok && strings.TrimSpace(k) == "model name" {
				return strings.TrimSpace(v)
			}
		}
	}
	return "CPU model unknown"
}

// writeMarkdown replaces what stands between the markers in the file at
// path with body.
func writeMarkdown(path, body string) error {
	raw, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("reading %s: %w", path, err)
	}
	out, err := replaceSection(string(raw), body)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if err := os.WriteFile(path, []byte(out), 0o644); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}

// replaceSection returns doc with the lines between its begin and end
// markers replaced by body; the markers stay.
func replaceSection(doc, body string) (string, error) {
	begin := strings.Index(doc, beginMarker+"\n")
	end := strings.Index(doc, "\n"+endMarker)
	if begin < 0 || end < 0 || end < begin {
		return "", errors.New("no " + beginMarker + " line followed by an " + endMarker + " line")
	}
	if body != "" && !strings.HasSuffix(body, "\n") {
		body += "\n"
	}
	head := doc[:begin+len(beginMarker)+1]
	return head + body + doc[end+1:], nil
}
