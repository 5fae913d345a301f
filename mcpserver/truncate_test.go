package mcpserver

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestTruncate(t *testing.T) {
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
		{"object with many keys drops members", manyKeys(20000, 100), 2000, true, []string{`"k0": "yyy`, `"…": "`, `more keys"`}},
		{"deep nesting", strings.Repeat(`{"a":`, 9000) + "1" + strings.Repeat("}", 9000), 500, true, []string{`{"a":{"a":`, `"…":"1 more keys"`}},
		{"invalid JSON cut as text", "[" + strings.Repeat("1,", 2000), 300, false, []string{"[1,1,", "truncated"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := truncate(c.in, c.max)
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

// FuzzTruncate checks that Truncate never panics, keeps within budget plus
// the marker's size for text, and keeps valid JSON valid.
func FuzzTruncate(f *testing.F) {
	f.Add(`{"a": [1, 2, 3, "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"], "b": {"c": null}}`, 40)
	f.Add(`[[[[["deep"]]]]]`, 5)
	f.Add("plain text", 3)
	f.Fuzz(func(t *testing.T, text string, max int) {
		if max < 0 || max > 1<<16 {
			return
		}
		got := truncate(text, max)
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

// BenchmarkTruncateLargeObject cuts a 10 MB object of 100,000 keys to the
// default budget (the work must stay linear in the input).
func BenchmarkTruncateLargeObject(b *testing.B) {
	text := manyKeys(100000, 100)
	for b.Loop() {
		if out := truncate(text, defaultMaxTokens*4); !json.Valid([]byte(out)) {
			b.Fatal("invalid JSON")
		}
	}
}
