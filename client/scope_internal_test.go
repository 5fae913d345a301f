package client

import (
	"fmt"
	"testing"
)

func TestScopeSetIsBounded(t *testing.T) {
	tests := []struct {
		name    string
		ops     func(s *scopeSet)
		has     []string
		hasNot  []string
		maxSize int
	}{
		{"added scopes are had", func(s *scopeSet) { s.add("a"); s.add("b") }, []string{"a", "b"}, []string{"c"}, 2},
		{"past maxScopes the oldest is forgotten", func(s *scopeSet) {
			for i := range maxScopes + 1 {
				s.add(fmt.Sprint(i))
			}
		}, []string{"1", fmt.Sprint(maxScopes)}, []string{"0"}, maxScopes},
		{"adding one twice keeps one", func(s *scopeSet) { s.add("a"); s.add("a") }, []string{"a"}, nil, 1},
		{"a removed scope is forgotten", func(s *scopeSet) { s.add("a"); s.add("b"); s.remove("a"); s.remove("zz") }, []string{"b"}, []string{"a"}, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := &scopeSet{}
			tt.ops(s)
			for _, x := range tt.has {
				if !s.has(x) {
					t.Errorf("%s is not had", x)
				}
			}
			for _, x := range tt.hasNot {
				if s.has(x) {
					t.Errorf("%s is had", x)
				}
			}
			if len(s.set) != tt.maxSize || len(s.order) != tt.maxSize {
				t.Errorf("%d scopes in the set, %d in the order, want %d", len(s.set), len(s.order), tt.maxSize)
			}
		})
	}
}
