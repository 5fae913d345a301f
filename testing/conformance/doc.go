// Package conformance is the black-box suite every runtime driver passes
// (seed 002, "Runtime conformance"). A driver's test calls
//
//	conformance.TestRuntime(t, func(ctx context.Context) (*client.Runtime, error) {
//		return client.NewRuntime(ctx, mydriver.New(opts))
//	})
//
// The suite creates and closes runtimes through the factory and observes
// only the public client journey: outcomes, content, output, tool calls,
// errors and the runtime's finished state, never a driver, process or wire
// message.
package conformance
