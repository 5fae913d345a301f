package main

import (
	"context"
	"fmt"
	"log"
	"os"
	"time"

	"github.com/codemode-go/codemode/client"
	"github.com/codemode-go/codemode/contract"
	"github.com/codemode-go/codemode/drivers/quickjs"
	"github.com/invopop/jsonschema"
)

// Request is the program input: {"type": "weather.requested", "cities": [...]}.
type Request struct {
	Type   string   `json:"type"`
	Cities []string `json:"cities" jsonschema:"description=Cities to report on."`
}

// JSONSchemaExtend declares the const that invopop's const= tag would drop.
func (Request) JSONSchemaExtend(s *jsonschema.Schema) {
	p, _ := s.Properties.Get("type")
	p.Const = "weather.requested"
}

type WeatherInput struct {
	Location string `json:"location" jsonschema:"description=City name."`
}

type WeatherReport struct {
	Location     string `json:"location"`
	TemperatureC int    `json:"temperatureC" jsonschema:"description=Degrees Celsius."`
	Conditions   string `json:"conditions"`
}

type ChartInput struct {
	Title string `json:"title"`
}

type Image struct {
	Data     string `json:"data" jsonschema:"description=Base64 PNG bytes."`
	MimeType string `json:"mimeType"`
}

// A 1x1 PNG stands in for a rendered chart.
const pixel = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="

const program = `export default async function ({ input, codemode, console, result }: AgentProgramScope) {
  console.info("Loading weather for", input.cities.join(", "));
  const reports = await Promise.all(input.cities.map((location) => codemode.getWeather({ location })));
  reports.sort((a, b) => b.temperatureC - a.temperatureC);
  result.appendText(reports.map((r) => ` + "`${r.location}: ${r.temperatureC}°C, ${r.conditions}`" + `).join("\n"));
  result.appendImage(await codemode.renderChart({ title: "Temperatures" }));
}
`

func main() {
	if err := run(); err != nil {
		log.Fatal(err)
	}
}

func run() error {
	getWeather, err := contract.NewTool("getWeather", "Current weather for a city.",
		func(ctx context.Context, in WeatherInput) (WeatherReport, error) {
			n := len([]rune(in.Location))
			cond := "sunny"
			if n%2 == 0 {
				cond = "rain"
			}
			return WeatherReport{Location: in.Location, TemperatureC: 3 * n, Conditions: cond}, nil
		})
	if err != nil {
		return err
	}
	renderChart, err := contract.NewTool("renderChart", "Render a chart as a PNG image.",
		func(ctx context.Context, in ChartInput) (Image, error) {
			return Image{Data: pixel, MimeType: "image/png"}, nil
		})
	if err != nil {
		return err
	}
	input, err := contract.SchemaFor[Request]()
	if err != nil {
		return err
	}
	c, err := contract.New(getWeather, renderChart)
	if err != nil {
		return err
	}
	c, err = c.WithInput(input) // the program also receives input
	if err != nil {
		return err
	}

	ctx := context.Background()
	rt, err := client.NewRuntime(ctx, quickjs.New(quickjs.Options{Timeout: 5 * time.Second}))
	if err != nil {
		return err
	}
	defer rt.Close()

	fmt.Println("// The declarations an agent writes against:")
	fmt.Println(c.TypeDefinitions())

	outcome, err := client.New(rt, c).Run(ctx, program, client.RunOptions{
		Input: Request{Type: "weather.requested", Cities: []string{"Oslo", "London", "Tokyo"}},
		OnTelemetry: func(e client.Event) {
			switch e.Kind {
			case client.EventProgramOutput:
				fmt.Fprint(os.Stderr, "program: ", e.Text)
			case client.EventToolCallCompleted:
				fmt.Fprintf(os.Stderr, "tool call %d: %s(%s) in %s\n", e.Seq, e.Tool, e.Input, e.Duration)
			}
		},
	})
	if err != nil {
		return err
	}
	if outcome.Kind != client.Success {
		return fmt.Errorf("program failed: %v\n%s", outcome.Error, outcome.Error.Stack)
	}
	fmt.Println("// The outcome:")
	for _, item := range outcome.Content {
		switch item.Type {
		case "text":
			fmt.Println(item.Text)
		case "image":
			fmt.Printf("[image %s, %d base64 characters]\n", item.MimeType, len(item.Data))
		}
	}
	return nil
}
