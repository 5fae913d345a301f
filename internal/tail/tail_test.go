package tail_test

import (
	"strings"
	"testing"

	"github.com/codemode-go/codemode/internal/tail"
)

func TestBufferKeepsTheLastBytes(t *testing.T) {
	for _, tc := range []struct {
		name   string
		max    int
		writes []string
		want   string
	}{
		{"under the bound", 8, []string{"ab", "cd"}, "abcd"},
		{"exactly the bound", 4, []string{"ab", "cd"}, "abcd"},
		{"drops the oldest", 4, []string{"abc", "def"}, "cdef"},
		{"one write larger than the bound", 3, []string{"x", "abcdefg"}, "efg"},
		{"many small writes", 5, strings.Split("the quick brown fox", ""), "n fox"},
		{"nothing written", 4, nil, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := tail.New(tc.max)
			for _, w := range tc.writes {
				n, err := b.Write([]byte(w))
				if n != len(w) || err != nil {
					t.Fatalf("Write(%q) = %d, %v; want %d, nil", w, n, err, len(w))
				}
			}
			if got := b.String(); got != tc.want {
				t.Errorf("String() = %q, want %q", got, tc.want)
			}
		})
	}
}

func FuzzBuffer(f *testing.F) {
	f.Add([]byte("hello"), []byte("world"), 3)
	f.Fuzz(func(t *testing.T, a, b []byte, limit int) {
		if limit <= 0 || limit > 1<<16 {
			t.Skip()
		}
		buf := tail.New(limit)
		buf.Write(a)
		buf.Write(b)
		all := string(a) + string(b)
		want := all[max(0, len(all)-limit):]
		if got := buf.String(); got != want {
			t.Fatalf("got %q, want %q", got, want)
		}
	})
}
