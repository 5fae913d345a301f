package cases

import (
	"os"
	"path/filepath"
	"testing"
)

// TestCopyMatchesShared checks that testdata/cases is the same as the shared
// cases beside the checkout (../shared/cases), when that folder exists.
func TestCopyMatchesShared(t *testing.T) {
	shared := "../../../shared/cases"
	if _, err := os.Stat(shared); err != nil {
		t.Skip("no shared/ beside this checkout")
	}
	ours := "../../testdata/cases"
	err := filepath.Walk(shared, func(path string, info os.FileInfo, err error) error {
		if err != nil || info.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(shared, path)
		want, _ := os.ReadFile(path)
		got, err := os.ReadFile(filepath.Join(ours, rel))
		if err != nil || string(got) != string(want) {
			t.Errorf("testdata/cases/%s differs from shared/cases: copy it again", rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestLoadReadsEveryCase(t *testing.T) {
	all, err := Load("../../testdata/cases")
	if err != nil {
		t.Fatal(err)
	}
	if len(all) < 18 {
		t.Fatalf("loaded %d cases", len(all))
	}
	for _, c := range all {
		if c.Source == "" || (c.Expect.Outcome == "" && !c.Expect.HostRejects) {
			t.Errorf("%s: incomplete case", c.Name)
		}
	}
}
