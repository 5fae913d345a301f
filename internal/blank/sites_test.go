package blank_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/codemode-go/codemode/internal/blank"
)

var siteNames = map[blank.SiteKind]string{blank.SiteFunction: "func", blank.SiteStatement: "stmt", blank.SiteCall: "call",
	blank.SiteNew: "new", blank.SiteBinary: "bin", blank.SiteThrow: "throw", blank.SiteRead: "read", blank.SiteWrite: "write", blank.SiteName: "name"}

// TestSitesListStepsInTheOrderTheirCodeIsEmitted pins Sites for the
// shapes whose order differs from the source's, and the marks.
func TestSitesListStepsInTheOrderTheirCodeIsEmitted(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		{`f(a.b)`, "stmt@0 name:f@0 call@2 name:a@2 read:b@4"},
		{`console.log("x")`, "stmt@0 name:console@0 read:log@8 call@12/8"},
		{`o.p = g(q)`, "stmt@0 name:o@0 name:g@6 call@8 name:q@8 write:p@2"},
		{`x.y += 1`, "stmt@0 name:x@0 read:y@2 write:y@2"},
		{`for (const {a} of xs) b.c`, "name:xs@18 read:a@12 stmt@22 name:b@22 read:c@24"},
		{`for (;i < n; i = i.next) b.c`, "name:i@6 bin@10 name:n@10 stmt@25 name:b@25 read:c@27 name:i@17 read:next@19 name:i@13"},
		{`new A(b).c(d?.e)`, "stmt@0 new@4 name:A@4 name:b@6 read:c@9 call@11 name:d@11"},
		{`v => v.x`, "stmt@0 func@0 name:v@5 read:x@7"},
		// An async arrow starts at "async", where QuickJS places it.
		{`async v => v.x`, "stmt@0 func@0 name:v@11 read:x@13"},
		{`f(async () => g(1))`, "stmt@0 name:f@0 call@2 func@2 name:g@14 call@16/14"},
		{"throw e.f", "throw@6 name:e@6 read:f@8"},
	} {
		st, ok := blank.Sites(tc.src)
		if !ok {
			t.Errorf("%q: refused", tc.src)
			continue
		}
		var got []string
		for _, s := range st {
			w := siteNames[s.Kind]
			if s.Name != "" {
				w += ":" + s.Name
			}
			w += fmt.Sprintf("@%d", s.Offset)
			if s.Mark != s.Offset {
				w += fmt.Sprintf("/%d", s.Mark)
			}
			got = append(got, w)
		}
		if g := strings.Join(got, " "); g != tc.want {
			t.Errorf("%q:\n got %s\nwant %s", tc.src, g, tc.want)
		}
	}
}
