interface Tools {
  /** Set the alert level. */
  setLevel(input: {
    level: "low" | "medium" | "high";
    channels?: ("email" | "sms")[];
  }): Promise<{
    previous: "low" | "medium" | "high";
    kind: "level.changed";
  }>;
}

interface CodeModeConsole {
  debug(...values: unknown[]): void;
  error(...values: unknown[]): void;
  info(...values: unknown[]): void;
  log(...values: unknown[]): void;
  warn(...values: unknown[]): void;
}

interface CodeModeResult {
  appendImage(image: {
    readonly data: string;
    readonly mimeType: string;
  }): void;
  appendText(text: string): void;
}

type ProgramContent =
  | { readonly type: "text"; readonly text: string }
  | { readonly type: "image"; readonly data: string; readonly mimeType: string };

/** A tool call's input broke the tool's input schema (the tool did not run), or its output broke its output schema: one "JSON-pointer: message" line per failure. */
declare class ToolValidationError extends Error {}

/** An MCP server's tool reported an error; the message is its text. */
declare class MCPToolError extends Error {}

/** An HTTP API answered with a status outside 2xx: status is the HTTP status code, method and path the request's, body the start of the response body. */
declare class HTTPError extends Error {
  readonly status: number;
  readonly method: string;
  readonly path: string;
  readonly body: string;
}

interface AgentProgramScope {
  readonly input: {
    readonly unit: "celsius" | "fahrenheit";
    readonly only?: "one";
    /** @default "low" */
    readonly level?: "low" | "medium" | "high";
  };
  readonly codemode: Tools;
  readonly console: CodeModeConsole;
  readonly result: CodeModeResult;
}

type AgentProgram = (scope: AgentProgramScope) => unknown;
