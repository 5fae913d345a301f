package answercut_test

import (
	"fmt"

	"github.com/codemode-go/codemode/internal/answercut"
)

// Cut keeps the members of an answer in order while they fit, and says
// which were left out.
func ExampleCut() {
	answer := `{"status":"completed","value":["a","b","c","d","e","f"],"logs":["first line","second line"]}`
	fmt.Println(answercut.Cut(answer, 80))
	// Output:
	// {"status":"completed","value":["a","… 5 more items"],"…":"1 more key: logs"}
}
