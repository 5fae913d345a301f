package codetool_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log"

	"github.com/codemode-go/codemode/client"
	"github.com/codemode-go/codemode/codetool"
	"github.com/codemode-go/codemode/contract"
	"github.com/codemode-go/codemode/drivers/quickjs"
)

// A Go agent hands the tool to its model (Name, Description, InputSchema)
// and answers each call with Call: the model's arguments in, the Answer's
// JSON out.
func ExampleTool_Call() {
	ctx := context.Background()
	type city struct {
		Name string `json:"name"`
	}
	type weather struct {
		TemperatureC float64 `json:"temperatureC"`
	}
	getWeather, err := contract.NewTool("getWeather", "The current weather of a city.", func(ctx context.Context, in city) (weather, error) {
		return weather{TemperatureC: map[string]float64{"Oslo": 4, "Lisbon": 19}[in.Name]}, nil
	})
	if err != nil {
		log.Fatal(err)
	}
	c, err := contract.New(getWeather)
	if err != nil {
		log.Fatal(err)
	}
	rt, err := client.NewRuntime(ctx, quickjs.New(quickjs.Options{}))
	if err != nil {
		log.Fatal(err)
	}
	defer rt.Close()
	tool, err := codetool.New(client.New(rt, c), codetool.Options{})
	if err != nil {
		log.Fatal(err)
	}

	answer, err := tool.Call(ctx, json.RawMessage(`{"code": "const [a, b] = await Promise.all([codemode.getWeather({ name: \"Oslo\" }), codemode.getWeather({ name: \"Lisbon\" })]);\nb.temperatureC - a.temperatureC"}`))
	if err != nil {
		log.Fatal(err) // the arguments were not {"code": "..."}, or the runtime failed
	}
	var a codetool.Answer
	if err := json.Unmarshal(answer, &a); err != nil {
		log.Fatal(err)
	}
	fmt.Println(tool.Name, a.Status, string(a.Value))
	// Output: code completed 15
}
