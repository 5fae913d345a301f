package main

import (
	"fmt"
	"strings"
)

// goal is one of issue 33's goals for a row: the median of contender who,
// divided by the median of contender against on the same row (or taken as
// it is when against is ""), is at most limit, or at least limit on a row
// where higher is better.
type goal struct {
	who, against string
	limit        float64
}

// shortNames name the contenders in the goal lines.
var shortNames = map[string]string{
	"quickjs":           "sandbox",
	"quickjs-inprocess": "in process",
	"node":              "Node.js",
	"reference":         "the reference",
}

func shortName(name string) string {
	if s, ok := shortNames[name]; ok {
		return s
	}
	return name
}

// verdict is what a run says of one goal.
type verdict int

const (
	unmeasured verdict = iota // a contender the goal needs did not run the row
	met
	notMet
)

// read returns what res says of g on row r, and the sentence that says it.
func (g goal) read(r row, res results) (verdict, string) {
	who, against := res[r.key][g.who], res[r.key][g.against]
	bound := "<="
	if r.higherIsBetter {
		bound = ">="
	}
	switch {
	case len(who) == 0:
		return unmeasured, fmt.Sprintf("%s: not measured", shortName(g.who))
	case g.against != "" && len(against) == 0:
		return unmeasured, fmt.Sprintf("%s against %s: not measured", shortName(g.who), shortName(g.against))
	}
	v := median(who)
	var text string
	switch {
	case g.against == "":
		text = fmt.Sprintf("%s %s (goal %s %s)", shortName(g.who), quantity(r, v), bound, quantity(r, g.limit))
	case r.higherIsBetter:
		v /= median(against)
		text = fmt.Sprintf("%s runs at %.2fx the rate of %s (goal %s %.2gx)", shortName(g.who), v, shortName(g.against), bound, g.limit)
	default:
		v /= median(against)
		text = fmt.Sprintf("%s takes %.2fx the time of %s (goal %s %.2gx)", shortName(g.who), v, shortName(g.against), bound, g.limit)
	}
	if v <= g.limit && !r.higherIsBetter || v >= g.limit && r.higherIsBetter {
		return met, text + ": met"
	}
	return notMet, text + ": NOT met"
}

// goalLines are one line per row that has goals, saying what the run says
// of each, and a last line counting them.
func goalLines(table []row, res results) []string {
	var lines []string
	count := map[verdict]int{}
	for _, r := range table {
		if len(r.goals) == 0 {
			continue
		}
		var parts []string
		for _, g := range r.goals {
			v, text := g.read(r, res)
			count[v]++
			parts = append(parts, text)
		}
		lines = append(lines, r.title+": "+strings.Join(parts, "; "))
	}
	if len(lines) > 0 {
		lines = append(lines, fmt.Sprintf("%d of %d goals met, %d not met, %d not measured in this run",
			count[met], count[met]+count[notMet]+count[unmeasured], count[notMet], count[unmeasured]))
	}
	return lines
}
