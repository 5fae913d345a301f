interface Tools {
  /** Return the value it was given. */
  echo(input: {
    /** Any text. */
    value: string;
  }): Promise<{
    value: string;
  }>;

  /** Add two numbers. */
  add(input: {
    a: number;
    b: number;
  }): Promise<{
    sum: number;
  }>;

  /** Current weather for a city. */
  getWeather(input: {
    /** City name. */
    location: string;
  }): Promise<{
    location: string;
    /** Degrees Celsius. */
    temperatureC: number;
    conditions: string;
  }>;

  /** List the items in the catalogue. */
  listItems(input: Record<string, never>): Promise<{
    items: {
      id: string;
      name: string;
      price: number;
    }[];
  }>;

  /** Always fails with the given message. */
  fail(input: {
    message: string;
  }): Promise<Record<string, never>>;

  /** Waits until its call is cancelled. */
  block(input: Record<string, never>): Promise<Record<string, never>>;

  /** Declares an output it does not keep to. */
  badOutput(input: Record<string, never>): Promise<{
    ok: boolean;
  }>;

  /** A 1x1 PNG image. */
  tinyImage(input: Record<string, never>): Promise<{
    /** Base64 bytes. */
    data: string;
    mimeType: "image/png";
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
  readonly codemode: Tools;
  readonly console: CodeModeConsole;
  readonly result: CodeModeResult;
}

type AgentProgram = (scope: AgentProgramScope) => unknown;
