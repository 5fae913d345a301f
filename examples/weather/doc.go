// Command weather is the quick-start example: a contract with typed tools
// and program input, the embedded QuickJS runtime, the declarations an agent
// is given, and one agent-authored TypeScript program that calls the tools,
// logs, and returns text and an image.
//
//	go run ./examples/weather
package main
