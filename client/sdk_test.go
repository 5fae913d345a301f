package client_test

import (
	"context"
	"strings"
	"testing"

	"github.com/codemode-go/codemode/client"
	"github.com/codemode-go/codemode/contract"
	"github.com/codemode-go/codemode/drivers/quickjs"
)

// TestSDKInAPlainRun: the codemode SDK works without anything recording
// the run: search and describe answer from the contract, step runs its
// function, and run says where saved programs are kept; in statements and
// in a module alike.
func TestSDKInAPlainRun(t *testing.T) {
	type in struct {
		Location string `json:"location"`
	}
	type out struct {
		TemperatureC float64 `json:"temperatureC"`
	}
	tool, err := contract.NewTool("getWeather", "Current weather for a city.", func(ctx context.Context, _ in) (out, error) { return out{21}, nil })
	if err != nil {
		t.Fatal(err)
	}
	c, err := contract.New(tool)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	rt, err := client.NewRuntime(ctx, quickjs.New(quickjs.Options{InProcess: true}))
	if err != nil {
		t.Fatal(err)
	}
	defer rt.Close()
	cl := client.New(rt, c)
	tests := []struct {
		name, code string
		module     bool
		value      string // the value, or the error's name and a part of its message
	}{
		{"search", `(await codemode.search("weather in a city")).results.map((r) => r.path)`, false, `["codemode.getWeather"]`},
		{"describe", `(await codemode.describe("codemode.getWeather")).types.includes("getWeather(input: {")`, false, `true`},
		{"describe of an unknown tool", `await codemode.describe("codemode.nope")`, false, "Error: codemode has no tool nope"},
		{"step", `await codemode.step("x", () => 41 + 1)`, false, `42`},
		{"step without a function", `await codemode.step("x", 1 as any)`, false, "TypeError: the second argument must be a function"},
		{"a tool beside the SDK", `(await codemode.getWeather({ location: "Oslo" })).temperatureC`, false, `21`},
		{"run", `await codemode.run("saved")`, false, "TypeError: saved programs are kept in a journal"},
		// The contract's tools, then the SDK's members, apart.
		{"an unknown tool", `await (codemode as any).getWether({ location: "Oslo" })`, false, "TypeError: unknown tool codemode.getWether: the contract declares getWeather, search, describe; codemode also has step, run"},
		{"step in a module", `export default async ({ codemode }: AgentProgramScope) => await codemode.step("a", () => 7)`, true, `7`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			run := cl.RunCode
			if tt.module {
				run = cl.Run
			}
			o, err := run(ctx, tt.code, client.RunOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if o.Kind == client.Success {
				if string(o.Value) != tt.value {
					t.Fatalf("value %s, want %s", o.Value, tt.value)
				}
				return
			}
			name, message, _ := strings.Cut(tt.value, ": ")
			if o.Error == nil || o.Error.Name != name || !strings.Contains(o.Error.Message, message) {
				t.Fatalf("outcome %s %+v, want %s", o.Kind, o.Error, tt.value)
			}
		})
	}
}
