package quickjs_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/codemode-go/codemode/client"
	"github.com/codemode-go/codemode/drivers/quickjs"
)

// TestRequestPartsAreOwn: the runner reads only the request parts its JSON
// has. A scope setup's text, evaluated before the request is read, that
// puts clock and hasInput on Object.prototype does not make the execution
// replay a clock or take an input.
func TestRequestPartsAreOwn(t *testing.T) {
	const setup = `(() => {
  Object.defineProperty(Object.prototype, "clock", { value: [42], configurable: true });
  Object.defineProperty(Object.prototype, "hasInput", { value: true, configurable: true });
  return (s: any): any => s;
})()`
	c := newClient(t, quickjs.Options{}).Extend(client.Extension{Setup: setup})
	const src = `export default async function (scope: any) {
  return { now: Date.now(), input: Object.prototype.hasOwnProperty.call(scope, "input") };
}`
	for i := range 3 { // the first runs, and any after a build
		out, err := c.Run(context.Background(), src, client.RunOptions{})
		if err != nil || out.Kind != client.Success {
			t.Fatalf("run %d: %v %+v", i, err, out)
		}
		var got struct {
			Now   float64 `json:"now"`
			Input bool    `json:"input"`
		}
		if err := json.Unmarshal(out.Value, &got); err != nil {
			t.Fatal(err)
		}
		if got.Now == 42 || got.Input {
			t.Errorf("run %d: %s: the request took a part from Object.prototype", i, out.Value)
		}
	}
}
