package main

import (
	"maps"
	"slices"
	"strconv"
	"strings"
	"testing"
)

func TestGoalRead(t *testing.T) {
	timeRow := row{key: "rt", unit: "us"}
	rateRow := row{key: "c", unit: "exec/s", higherIsBetter: true}
	ratioRow := row{key: "cat", unit: "x"}
	res := results{
		"rt":  {"quickjs": {300, 200, 250}, "quickjs-inprocess": {100, 100, 100}, "reference": {500}},
		"c":   {"quickjs": {1500, 2000, 1800}, "reference": {1200}},
		"cat": {"quickjs": {1.1, 1.3, 1.25}},
	}
	cases := []struct {
		name string
		r    row
		g    goal
		want verdict
		text string
	}{
		{"time ratio not met", timeRow, goal{"quickjs", "quickjs-inprocess", 1.3}, notMet,
			"sandbox takes 2.50x the time of in process (goal <= 1.3x): NOT met"},
		{"time ratio met", timeRow, goal{"quickjs", "reference", 0.5}, met,
			"sandbox takes 0.50x the time of the reference (goal <= 0.5x): met"},
		{"absolute met", timeRow, goal{"quickjs", "", 250}, met, "sandbox 250 µs (goal <= 250 µs): met"},
		{"absolute not met", timeRow, goal{"quickjs-inprocess", "", 99}, notMet, "in process 100 µs (goal <= 99 µs): NOT met"},
		{"rate met", rateRow, goal{"quickjs", "reference", 1.5}, met,
			"sandbox runs at 1.50x the rate of the reference (goal >= 1.5x): met"},
		{"rate not met", rateRow, goal{"quickjs", "reference", 1.6}, notMet,
			"sandbox runs at 1.50x the rate of the reference (goal >= 1.6x): NOT met"},
		{"ratio row", ratioRow, goal{"quickjs", "", 1.2}, notMet, "sandbox 1.25x (goal <= 1.20x): NOT met"},
		{"contender missing", rateRow, goal{"node", "reference", 1}, unmeasured, "Node.js: not measured"},
		{"comparison missing", ratioRow, goal{"quickjs", "reference", 1}, unmeasured, "sandbox against the reference: not measured"},
		{"row missing", row{key: "none"}, goal{"quickjs", "", 1}, unmeasured, "sandbox: not measured"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			v, text := tc.g.read(tc.r, res)
			if v != tc.want || text != tc.text {
				t.Fatalf("read = %v, %q; want %v, %q", v, text, tc.want, tc.text)
			}
		})
	}
}

func TestGoalLines(t *testing.T) {
	table := []row{
		{key: "a", title: "row a", unit: "ms", goals: []goal{{"quickjs", "", 1}, {"quickjs", "reference", 0.5}}},
		{key: "b", title: "row b without goals", unit: "ms"},
		{key: "c", title: "row c", unit: "ms", goals: []goal{{"quickjs", "", 1}}},
	}
	res := results{"a": {"quickjs": {0.5}}, "c": {"quickjs": {2}}}
	want := []string{
		"row a: sandbox 0.50 ms (goal <= 1.00 ms): met; sandbox against the reference: not measured",
		"row c: sandbox 2.00 ms (goal <= 1.00 ms): NOT met",
		"1 of 3 goals met, 1 not met, 1 not measured in this run",
	}
	if got := goalLines(table, res); !slices.Equal(got, want) {
		t.Fatalf("goalLines:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if got := goalLines(table[1:2], res); got != nil {
		t.Fatalf("goalLines of a row without goals = %q, want none", got)
	}
}

func TestSelectRows(t *testing.T) {
	cases := []struct {
		only  string
		scale float64
		want  []string // key:n
		fails bool
	}{
		{"warm", 1, []string{"warm:200"}, false},
		{"journal,warm", 0.5, []string{"warm:100", "journal:100"}, false}, // the table's order
		{"replay1000,nocall", 0.1, []string{"replay1000:1000", "nocall:5"}, false},
		{"boot", 0.1, []string{"boot:1"}, false},
		{"warm,", 1, []string{"warm:200"}, false},
		{"warm,nosuchrow", 1, nil, true},
	}
	for _, tc := range cases {
		t.Run(tc.only, func(t *testing.T) {
			table, err := selectRows(tc.only, tc.scale)
			if (err != nil) != tc.fails {
				t.Fatalf("err = %v, want failure %v", err, tc.fails)
			}
			var got []string
			for _, r := range table {
				got = append(got, r.key+":"+strconv.Itoa(r.n))
			}
			if !slices.Equal(got, tc.want) {
				t.Fatalf("got %q, want %q", got, tc.want)
			}
		})
	}
}

func TestEveryGoalNamesAContender(t *testing.T) {
	names := append(slices.Collect(maps.Keys(columnNames)), "")
	for _, r := range allRows {
		for _, g := range r.goals {
			if !slices.Contains(names, g.who) || g.who == "" || !slices.Contains(names, g.against) {
				t.Errorf("row %s: goal %+v names no contender", r.key, g)
			}
		}
	}
}
