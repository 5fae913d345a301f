// Package conformance is the black-box suite every runtime driver passes
//
// (https://github.com/torkbot/code-mode#runtime-conformance). A driver's test calls
//
//	func TestConformance(t *testing.T) {
//		conformance.TestRuntime(t, func(ctx context.Context) (conformance.Runtime, error) {
//			return client.NewRuntime(ctx, mydriver.New(opts))
//		})
//	}
//
// (ExampleTestRuntime compiles it against the QuickJS driver). A pool of
// the driver's runners (client.NewPool) is a *client.Runtime too, and is
// tested the same way.
//
// The suite creates and closes runtimes through the factory and observes
// only the public client journey: outcomes, content, output, tool calls,
// errors and the runtime's finished state, never a driver, process or wire
// message.
package conformance
