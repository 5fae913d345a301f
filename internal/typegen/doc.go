// Package typegen prints the TypeScript declarations an agent sees for a
// program contract: the program input, every tool's input and output, the
// captured console, the result writer and the default-export contract.
//
// Schemas are JSON Schema (draft 2020-12) given as JSON text. The printer is
// strict, following
// https://github.com/torkbot/code-mode#schemas-tools-and-checking: it supports
// closed objects (additionalProperties: false), maps (additionalProperties a
// schema, without properties: Record<string, V>), arrays, strings (with a
// const or an enum of strings giving literal types), numbers, integers,
// booleans, null, unknown (a schema of annotations alone), two narrow forms
// of anyOf/oneOf (a discriminated union of closed objects, and T | null),
// and named types: a $ref to the root $defs of a tool's (or the program
// input's) schema prints a name, and the definition is declared once per
// namespace, in the namespace that [TypesNamespaceName] names
// (InputTypes for the program input), so recursive and shared types stay
// exact and the declarations proportional to the types. Every other keyword or shape fails with a [*SchemaError] that names
// the JSON pointer and keyword, instead of being represented loosely, so the
// declarations are always exact. Validation-only keywords (minLength, pattern,
// minimum, minItems and the like) are accepted on their matching types and do
// not change the printed type: the host validates values against the schema.
//
// [Type] renders one schema; [Declarations] renders the complete surface as
// global script declarations (no import or export) that a TypeScript checker
// loads beside a submitted program. A string with contentEncoding "base64"
// (the one way bytes cross the tool boundary) is declared string, with the
// tag @contentEncoding base64 in its property's JSDoc; a string with a
// format is declared string with the tag @format <name> there (a Go
// time.Time: @format date-time), since TypeScript has no type for either.
//
// A tool's [Annotations] (MCP's tool annotations) print as JSDoc tags after
// its description (@readonly, @destructive, @idempotent, @openWorld).
// Descriptions come from MCP servers, OpenAPI documents and tools files and
// are printed as text inside their comment: line terminators (CR, CRLF,
// U+2028, U+2029) break comment lines, every other control character (NUL,
// ESC, C1, bidirectional overrides and isolates, zero-width characters)
// prints as a visible \xNN or \uNNNN, invalid UTF-8 as U+FFFD, "*/" as
// "*\/", and an "@" that TypeScript would read as a block tag (at a line's
// start or after white space) as "\@", so that no description ends its
// comment, hides text from a reader or adds a tag beside the host's own
// (annotations, a property's @format). Property names and string literal
// types escape the same control characters as \uNNNN.
// [Surface].SDK adds code mode's own members to the codemode namespace
// (codemode.search, describe and step, with their result types). [ForChecker] prints, from the same surface, what a type checker
// needs beside the declarations (exact tool inputs, namespaces without
// Object.prototype members), so no checker has to parse the printed text.
//
// # Describing one tool
//
// A [Describer] renders one method of a namespace, or one of its named
// types, for a describe answer: only the named types that method reaches,
// within a character bound ([DefaultDescribeChars], 4,000, unless the caller
// passes another), printed compactly, its description shortened and the
// farthest types listed by name when the full text is longer. The discovery
// SDK's describe calls it per method (see contract.Namespace.Describer).
//
// # Lenient mode
//
// Foreign schemas, such as the tools an MCP server advertises (draft-07 from
// zod-to-json-schema, draft 2020-12, OpenAPI 3.0's nullable), are loosely
// written and often open. [LenientType], and [Declarations] for a tool whose
// [ToolDecl].Lenient is set, print them without failing, following
// generateTypesFromJsonSchema (https://developers.cloudflare.com/agents/tools/codemode/api-reference/) ("unsupported schemas degrade to unknown
// instead of failing"): what cannot be expressed becomes unknown for that
// spot only. The lenient type is always a superset of what the schema
// accepts (it never rejects a value the upstream accepts; the host still
// validates against the schema itself), with one documented exception: a
// schema with properties and no type is taken to be an object. It resolves
// same-document $ref, prints anyOf/oneOf as unions and allOf as
// intersections, const and enum of any JSON values as literal types, type
// arrays and nullable as unions, open objects with index signatures, and
// tuples; see [LenientType] for every rule.
package typegen
