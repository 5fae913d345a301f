package membudget

import (
	"bytes"
	"context"
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

func TestBudgetReservesOnItselfAndItsParent(t *testing.T) {
	server := New(100, "the server's total", nil)
	a := New(60, "Limits.MaxInFlightBytes", server)
	b := New(60, "Limits.MaxInFlightBytes", server)
	steps := []struct {
		name    string
		do      func() error
		wantErr string // "" for success
		held    [3]int64
	}{
		{"a takes 50", func() error { return a.Take(50) }, "", [3]int64{100 - 50, 50, 0}},
		{"a cannot pass its own bound", func() error { return a.Take(11) }, "more than 60 bytes", [3]int64{50, 50, 0}},
		{"b takes 50: the server has 100", func() error { return b.Take(50) }, "", [3]int64{0, 50, 50}},
		{"b cannot pass the server's bound", func() error { return b.Take(1) }, "the server's total", [3]int64{0, 50, 50}},
		{"a gives 20 back", func() error { a.Give(20); return nil }, "", [3]int64{20, 30, 50}},
		{"a closes: the server has its 30 back", func() error { a.Close(); return nil }, "", [3]int64{50, 30, 50}},
		{"a closed takes nothing", func() error { return a.Take(1) }, "more than 60 bytes", [3]int64{50, 30, 50}},
		{"a closed gives back to itself only", func() error { a.Give(30); return nil }, "", [3]int64{50, 0, 50}},
	}
	for _, s := range steps {
		err := s.do()
		switch {
		case s.wantErr == "" && err != nil:
			t.Fatalf("%s: %v", s.name, err)
		case s.wantErr != "" && (err == nil || !strings.Contains(err.Error(), s.wantErr)):
			t.Fatalf("%s: error %v, want one containing %q", s.name, err, s.wantErr)
		}
		if got := [3]int64{100 - server.Held(), a.Held(), b.Held()}; got != s.held {
			t.Fatalf("%s: server free, a, b = %v, want %v", s.name, got, s.held)
		}
	}
	var named interface{ ErrorName() string }
	if err := b.Take(1000); !errors.As(err, &named) || named.ErrorName() != "RangeError" {
		t.Fatalf("error %v is not a RangeError", err)
	}
}

func TestAccountGivesBackEverythingOnClose(t *testing.T) {
	b := New(1000, "bound", nil)
	acct := b.Open()
	if err := acct.Take(100); err != nil {
		t.Fatal(err)
	}
	if err := acct.Take(300); err != nil {
		t.Fatal(err)
	}
	if b.Held() != 400 {
		t.Fatalf("held %d, want 400", b.Held())
	}
	acct.Close()
	if b.Held() != 0 {
		t.Fatalf("held %d after Close, want 0", b.Held())
	}
	var none *Account
	if err := none.Take(1 << 40); err != nil {
		t.Fatalf("a nil account refused: %v", err)
	}
	ctx := WithAccount(context.Background(), acct)
	if AccountFrom(ctx) != acct || AccountFrom(context.Background()) != nil {
		t.Fatal("AccountFrom does not return the account of its context")
	}
}

// TestReadAllReservesBeforeItAllocates: every buffer ReadAll allocates is
// reserved first, outgrown ones included, and a read that would pass the
// budget fails, as does one past max.
func TestReadAllReservesBeforeItAllocates(t *testing.T) {
	data := bytes.Repeat([]byte("abcdefgh"), 10_000) // 80,000 bytes
	cases := []struct {
		name     string
		budget   int64
		max      int64
		hint     int64
		r        io.Reader
		wantErr  error
		wantHeld func(capacity int64) bool
	}{
		// Doubling from 4 KiB: the buffers outgrown add up to less than
		// the last one.
		{"fits", 1 << 20, 1 << 20, -1, bytes.NewReader(data), nil, func(c int64) bool { return c >= 80_000 && c < 4*80_000 }},
		{"one byte at a time", 1 << 20, 1 << 20, -1, iotest.OneByteReader(bytes.NewReader(data)), nil, func(c int64) bool { return c >= 80_000 && c < 4*80_000 }},
		{"exact hint", 1 << 20, 1 << 20, 80_000, bytes.NewReader(data), nil, func(c int64) bool { return c == 80_000 }},
		{"a lying hint", 1 << 20, 1 << 20, 10, bytes.NewReader(data), nil, func(c int64) bool { return c >= 80_000 }},
		{"past the budget", 50_000, 1 << 20, -1, bytes.NewReader(data), &ExceededError{}, nil},
		{"past max", 1 << 20, 70_000, -1, bytes.NewReader(data), ErrTooLarge, nil},
		{"a read error", 1 << 20, 1 << 20, -1, iotest.ErrReader(io.ErrClosedPipe), io.ErrClosedPipe, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			b := New(tc.budget, "bound", nil)
			acct := b.Open()
			got, err := ReadAll(acct, tc.r, tc.max, tc.hint)
			if tc.wantErr != nil {
				var ee *ExceededError
				if !errors.Is(err, tc.wantErr) && !(errors.As(tc.wantErr, &ee) && errors.As(err, &ee)) {
					t.Fatalf("error %v, want %v", err, tc.wantErr)
				}
				if b.Held() > tc.budget {
					t.Fatalf("%d bytes reserved, past the budget", b.Held())
				}
				return
			}
			if err != nil || !bytes.Equal(got, data) {
				t.Fatalf("read %d bytes, %v", len(got), err)
			}
			if b.Held() < int64(cap(got)) || !tc.wantHeld(b.Held()) {
				t.Fatalf("held %d for a buffer of capacity %d", b.Held(), cap(got))
			}
		})
	}
}
