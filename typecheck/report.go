package typecheck

// Report renders diagnostics of source the way Result.Report does: for each,
// "file:line:col - error TScode: message", the line before and after and a
// caret under the column, in at most 8,000 characters. Callers that
// moved diagnostics to other coordinates (for example to the code a model
// wrote, before it was wrapped into a module) use it to render them again.
func Report(source string, ds []Diagnostic) string { return report(source, ds) }
