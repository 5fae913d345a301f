package openapi

import (
	"slices"
	"testing"
)

// A warning shared by more than foldAt operations is one line where it
// first appears, with the count and the first operations; the others keep
// a line each, in order.
func TestWarningsFoldWhatManyOperationsShare(t *testing.T) {
	form := ": request body media types application/x-www-form-urlencoded are left out"
	tests := []struct {
		name string
		ws   opWarnings
		want []string
	}{
		{"none", nil, nil},
		{"a few stay apart", opWarnings{{"operation GET /a", form}, {"operation GET /b", form}, {"operation GET /c", form}},
			[]string{"operation GET /a" + form, "operation GET /b" + form, "operation GET /c" + form}},
		{"many fold at the first", opWarnings{
			{"operation GET /x", ": cookie parameter sid is left out"},
			{"operation GET /a", form}, {"operation GET /b", form},
			{"operation GET /y", " skipped: path parameter {id} is not declared"},
			{"operation GET /c", form}, {"operation GET /d", form}, {"operation GET /e", form},
		}, []string{
			"operation GET /x: cookie parameter sid is left out",
			"5 operations" + form + " (operation GET /a; operation GET /b; operation GET /c; and 2 more)",
			"operation GET /y skipped: path parameter {id} is not declared",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.ws.lines(); !slices.Equal(got, tt.want) {
				t.Errorf("got\n%q\nwant\n%q", got, tt.want)
			}
		})
	}
}
