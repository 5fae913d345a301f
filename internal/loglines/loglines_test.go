package loglines

import (
	"slices"
	"testing"
)

func TestLinesSplitsStreamsAndKeepsUnfinishedLinesLast(t *testing.T) {
	var l Lines
	if l.All() != nil {
		t.Fatal("an empty collector has lines")
	}
	l.Add("stdout", "a\nb")
	l.Add("stderr", "oops\n")
	l.Add("stdout", "c\nd")
	l.Add("stderr", "half")
	want := []string{"a", "[stderr] oops", "bc", "d", "[stderr] half"}
	if got := l.All(); !slices.Equal(got, want) {
		t.Fatalf("got %q, want %q", got, want)
	}
}
