package search

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/codemode-go/codemode/connector/openapi"
)

func TestZZExplain(t *testing.T) {
	file, qs := os.Getenv("EXPLAIN_FILE"), os.Getenv("EXPLAIN_Q")
	if file == "" {
		t.Skip()
	}
	c, _, err := openapi.Load(context.Background(), file, openapi.Options{Name: "x", BaseURL: "https://e.invalid"})
	if err != nil {
		t.Fatal(err)
	}
	tools, _ := c.Tools()
	var docs []Document
	var names []string
	for _, tl := range tools {
		docs = append(docs, NewDocument(Tool{Namespace: "x", Name: tl.Name, Description: tl.Description, InputSchema: tl.InputSchema}))
		names = append(names, tl.Name)
	}
	ix := New(docs)
	name := func(id int32) string {
		for s, i := range ix.ids {
			if i == id {
				return s
			}
		}
		return "?"
	}
	names2 := func(ids []int32) string {
		var o []string
		for _, i := range ids {
			o = append(o, name(i))
		}
		return strings.Join(o, " ")
	}
	for _, q := range strings.Split(qs, ";") {
		pq := ix.parseQuery(q, make([]float64, len(ix.ids)))
		obj := ""
		if pq.object != nil {
			obj = pq.object.stem
		}
		verb := ""
		if pq.verb >= 0 {
			verb = name(pq.verb)
		}
		fmt.Printf("== %q verb=%s fam=%d object=%s\n", q, verb, pq.family, obj)
		hits, _ := ix.Search(q, 0)
		for i, h := range hits[:min(8, len(hits))] {
			d := int32(h.Doc)
			di := ix.docs[d]
			var objs []string
			for _, o := range di.objects {
				objs = append(objs, "["+names2(o)+"]")
			}
			fmt.Printf("%d %-50s %6.2f cov=%.2f str=%.2f act=[%s] fam=%d obj=%s ctx=[%s]\n", i+1, names[d], h.Score, ix.coverage(d, pq), ix.structure(d, pq), names2(di.actions), di.families, strings.Join(objs, ""), names2(di.context))
		}
		for i, h := range hits {
			if os.Getenv("EXPLAIN_WANT") != "" && strings.Contains(" "+os.Getenv("EXPLAIN_WANT")+" ", " "+names[h.Doc]+" ") {
				d := int32(h.Doc)
				di := ix.docs[d]
				var objs []string
				for _, o := range di.objects {
					objs = append(objs, "["+names2(o)+"]")
				}
				fmt.Printf("WANT %d %-50s %6.2f cov=%.2f str=%.2f act=[%s] fam=%d obj=%s ctx=[%s]\n", i+1, names[d], h.Score, ix.coverage(d, pq), ix.structure(d, pq), names2(di.actions), di.families, strings.Join(objs, ""), names2(di.context))
			}
		}
	}
}
