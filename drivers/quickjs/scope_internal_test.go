package quickjs

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/codemode-go/codemode/internal/wire"
)

func TestScopeCacheEvictsLeastRecentlyUsed(t *testing.T) {
	tests := []struct {
		name string
		ops  func(c *scopeCache[int])
		keep []string // oldest first
	}{
		{"within the count", func(c *scopeCache[int]) {
			c.put("a", 1, 10)
			c.put("b", 2, 10)
		}, []string{"a", "b"}},
		{"past the count the oldest goes", func(c *scopeCache[int]) {
			for i := range maxScopes + 2 {
				c.put(fmt.Sprint(i), i, 10)
			}
		}, func() (k []string) {
			for i := 2; i < maxScopes+2; i++ {
				k = append(k, fmt.Sprint(i))
			}
			return k
		}()},
		{"a get makes a scope the newest", func(c *scopeCache[int]) {
			for i := range maxScopes {
				c.put(fmt.Sprint(i), i, 10)
			}
			c.get("0")
			c.put("new", 0, 10)
		}, func() (k []string) {
			for i := 2; i < maxScopes; i++ {
				k = append(k, fmt.Sprint(i))
			}
			return append(k, "0", "new")
		}()},
		{"past the bytes the oldest go", func(c *scopeCache[int]) {
			c.put("a", 1, maxScopeBytes/2)
			c.put("b", 2, maxScopeBytes/2)
			c.put("c", 3, 1)
		}, []string{"b", "c"}},
		{"the newest stays whatever its size", func(c *scopeCache[int]) {
			c.put("a", 1, 10)
			c.put("huge", 2, maxScopeBytes+1)
		}, []string{"huge"}},
		{"a scope put again replaces itself", func(c *scopeCache[int]) {
			c.put("a", 1, 10)
			c.put("b", 2, 10)
			c.put("a", 3, 10)
		}, []string{"b", "a"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := &scopeCache[int]{}
			tt.ops(c)
			var got []string
			for _, e := range c.entries {
				got = append(got, e.scope)
			}
			if !reflect.DeepEqual(got, tt.keep) {
				t.Fatalf("kept %v, want %v", got, tt.keep)
			}
		})
	}
	c := &scopeCache[int]{}
	c.put("a", 1, 1)
	c.put("a", 7, 1)
	if v, ok := c.get("a"); !ok || v != 7 {
		t.Fatalf("get a: %d %v, want the value put last", v, ok)
	}
	if _, ok := c.get("b"); ok {
		t.Fatal("get of a scope never put found one")
	}
}

func TestScopeNames(t *testing.T) {
	tests := []struct {
		name string
		in   []wire.Namespace
		text string
		ns   []nsJSON
		err  string
	}{
		{"one namespace", []wire.Namespace{{Name: "github", Tools: []string{"a", "bc"}}}, "\na\nbc\n", []nsJSON{{"github", 6}}, ""},
		{"an empty namespace between two", []wire.Namespace{{Name: "x", Tools: []string{"a"}}, {Name: "y"}, {Name: "z", Tools: []string{"b"}}},
			"\na\n\nb\n", []nsJSON{{"x", 3}, {"y", 0}, {"z", 3}}, ""},
		{"sizes in UTF-16 code units", []wire.Namespace{{Name: "u", Tools: []string{"é", "𝔸"}}}, "\né\n𝔸\n", []nsJSON{{"u", 6}}, ""},
		{"a tool with a newline", []wire.Namespace{{Name: "x", Tools: []string{"a\nb"}}}, "", nil, "newline"},
		{"an empty tool", []wire.Namespace{{Name: "x", Tools: []string{""}}}, "", nil, "empty"},
		{"no namespaces", nil, "", []nsJSON{}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := newScopeNames(tt.in)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("got %v, want an error saying %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if s.text != tt.text || !reflect.DeepEqual(s.namespaces, tt.ns) {
				t.Fatalf("text %q, namespaces %v; want %q, %v", s.text, s.namespaces, tt.text, tt.ns)
			}
			for _, ns := range tt.in {
				for _, tool := range ns.Tools {
					if !s.tools[ns.Name+"\x00"+tool] {
						t.Errorf("%s.%s is not callable", ns.Name, tool)
					}
				}
			}
		})
	}
}
