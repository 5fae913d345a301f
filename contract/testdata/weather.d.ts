interface Tools {
  /**
   * Current weather for a city.
   * Temperatures are rounded to one decimal.
   */
  getWeather(input: {
    /** City name. */
    location: string;
    /** Temperature units; celsius when omitted. */
    units?: "celsius" | "fahrenheit";
  }): Promise<{
    location: string;
    /** Temperature in the requested units. */
    temperature: number;
    /** Short summary such as sunny or light rain. */
    conditions: string;
    alerts?: string[];
    /**
     * @minimum 0
     * @maximum 23
     */
    observedHour: number;
  }>;

  /** Area of a shape in square metres. */
  area(input: {
    kind: "circle";
    /** Radius in metres. */
    radius: number;
  } | {
    kind: "square";
    side: number;
  }): Promise<{
    area: number;
  }>;

  /**
   * Searches the tools (and saved programs, where there are any); at most 50
   * results, best first. Returns paths, not schemas: pass one to describe for
   * its declarations.
   */
  search(query: string): Promise<SearchOutput>;

  /** TypeScript declarations of a namespace, a namespace.tool or a saved program's name. */
  describe(target: string): Promise<DescribeOutput>;

  /**
   * Runs fn and returns its value. Wrap work that is not a tool call and may
   * give another value each time it runs (Date.now(), Math.random(), fetch):
   * where executions are recorded, its value is recorded and, when the
   * execution runs again, returned without running fn.
   */
  step<T>(name: string, fn: () => T | Promise<T>): Promise<T>;
}

type SearchResult = {
  path: string;
  connector: string;
  method: string;
  description?: string;
  requiresApproval?: boolean;
  kind: "method" | "snippet";
  score: number;
};

type SearchOutput = {
  results: SearchResult[];
  total: number;
  truncated: boolean;
};

type DescribeOutput = {
  path: string;
  description?: string;
  requiresApproval?: boolean;
  types: string;
  kind: "connector" | "method" | "snippet";
};

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
    /** Always weather.requested. */
    readonly type: "weather.requested";
    /** City the weather was requested for. */
    readonly location: string;
  };
  readonly codemode: Tools;
  readonly console: CodeModeConsole;
  readonly result: CodeModeResult;
}

type AgentProgram = (scope: AgentProgramScope) => unknown;
