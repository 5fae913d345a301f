package answercut

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestCut(t *testing.T) {
	big := make([]int, 3000)
	for i := range big {
		big[i] = i
	}
	items, _ := json.Marshal(big)
	bigArray := "{\n  \"z\": \"first key\",\n  \"items\": " + string(items) + ",\n  \"a\": \"last key\"\n}"
	longString, _ := json.Marshal(map[string]string{"text": strings.Repeat("é", 5000)})
	cases := []struct {
		name     string
		in       string
		max      int
		json     bool     // the result must be valid JSON
		contains []string // in order
	}{
		{"short text unchanged", "hello", 100, false, []string{"hello"}},
		{"plain text cut with a marker", strings.Repeat("word ", 1000), 500, false, []string{"word word", "[truncated: 420 of 5000 characters shown]"}},
		{"array cut, keys in order", bigArray, 2000, true, []string{`"z": "first key"`, `"items": [`, "more items", `"a": "last key"`}},
		{"long string cut", string(longString), 1000, true, []string{`{"text":"ééé`, "more characters]"}},
		{"object with many keys drops members", manyKeys(20000, 100), 2000, true, []string{`"k0": "yyy`, `"…": "`, `more keys: k`}},
		{"deep nesting", strings.Repeat(`{"a":`, 9000) + "1" + strings.Repeat("}", 9000), 500, true, []string{`{"a":{"a":`, `"…":"1 more key: a"`}},
		{"invalid JSON cut as text", "[" + strings.Repeat("1,", 2000), 300, false, []string{"[1,1,", "truncated"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := Cut(c.in, c.max)
			if n := utf8.RuneCountInString(got); n > c.max {
				t.Fatalf("%d characters, budget %d", n, c.max)
			}
			if c.json && !json.Valid([]byte(got)) {
				t.Fatalf("not valid JSON: %s", got)
			}
			at := 0
			for _, want := range c.contains {
				i := strings.Index(got[at:], want)
				if i < 0 {
					t.Fatalf("lacks %q (in order) in:\n%.600s", want, got)
				}
				at += i + len(want)
			}
		})
	}
}

// FuzzCut checks that Cut never panics, keeps within budget plus
// the marker's size for text, and keeps valid JSON valid.
func FuzzCut(f *testing.F) {
	f.Add(`{"a": [1, 2, 3, "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"], "b": {"c": null}}`, 40)
	f.Add(`[[[[["deep"]]]]]`, 5)
	f.Add("plain text", 3)
	f.Fuzz(func(t *testing.T, text string, max int) {
		if max < 0 || max > 1<<16 {
			return
		}
		got := Cut(text, max)
		if utf8.RuneCountInString(text) <= max {
			if got != text {
				t.Fatalf("changed text within budget")
			}
			return
		}
		if json.Valid([]byte(got)) && utf8.RuneCountInString(got) > max {
			t.Fatalf("JSON over budget: %d > %d", utf8.RuneCountInString(got), max)
		}
		if utf8.RuneCountInString(got) > max+80 {
			t.Fatalf("text over budget: %d > %d", utf8.RuneCountInString(got), max)
		}
	})
}

// manyKeys is an indented object of n keys with values of size characters.
func manyKeys(n, size int) string {
	var b strings.Builder
	b.WriteString("{")
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteString(",")
		}
		b.WriteString("\n  \"k" + strconv.Itoa(i) + "\": \"" + strings.Repeat("y", size) + "\"")
	}
	b.WriteString("\n}")
	return b.String()
}

// BenchmarkCutLargeObject cuts a 10 MB object of 100,000 keys to the
// default budget (the work must stay linear in the input).
func BenchmarkCutLargeObject(b *testing.B) {
	text := manyKeys(100000, 100)
	for b.Loop() {
		if out := Cut(text, 24000); !json.Valid([]byte(out)) {
			b.Fatal("invalid JSON")
		}
	}
}

// TestMoreKeysNamesWhatIsMissing: an object's marker names the members
// left out, within moreKeysNames bytes, and the cut stays in budget when
// the names are long.
func TestMoreKeysNamesWhatIsMissing(t *testing.T) {
	for _, c := range []struct {
		keys []string
		want string
	}{
		{[]string{"logs"}, "1 more key: logs"},
		{[]string{"error", "logs"}, "2 more keys: error, logs"},
		{[]string{strings.Repeat("a", 40), strings.Repeat("b", 40), "c"}, "3 more keys: " + strings.Repeat("a", 40) + ", …"},
		{[]string{strings.Repeat("x", 200)}, "1 more key: …"},
	} {
		if got := moreKeys(c.keys); got != c.want {
			t.Errorf("moreKeys(%q) = %q, want %q", c.keys, got, c.want)
		}
	}
	long := `{"value":"` + strings.Repeat("v", 500) + `","` + strings.Repeat("k", 55) + `":1,"logs":["x"]}`
	for budget := 60; budget < 200; budget += 7 {
		got := Cut(long, budget)
		if !json.Valid([]byte(got)) || utf8.RuneCountInString(got) > budget {
			t.Fatalf("budget %d: %d characters, valid %v: %s", budget, utf8.RuneCountInString(got), json.Valid([]byte(got)), got)
		}
	}
}
