interface EverythingTools {
  /** Echoes back the input */
  echo(input: {
    /** Message to echo */
    message: string;
  }): Promise<any>;

  /** Adds two numbers */
  add(input: {
    /** First number */
    a: number;
    /** Second number */
    b: number;
  }): Promise<any>;

  /** Demonstrates a long running operation with progress updates */
  longRunningOperation(input?: {
    /**
     * Duration of the operation in seconds
     * @default 10
     */
    duration?: number;
    /**
     * Number of steps in the operation
     * @default 5
     */
    steps?: number;
  }): Promise<any>;

  /** Returns the MCP_TINY_IMAGE */
  getTinyImage(input?: Record<string, never>): Promise<any>;

  /** Demonstrates how annotations can be used to provide metadata about content */
  annotatedMessage(input: {
    /** Type of message to demonstrate different annotation patterns */
    messageType: "error" | "success" | "debug";
    /**
     * Whether to include an example image
     * @default false
     */
    includeImage?: boolean;
  }): Promise<any>;

  /** Returns a resource reference that can be used by MCP clients */
  getResourceReference(input: {
    /**
     * ID of the resource to reference (1-100)
     * @minimum 1
     * @maximum 100
     */
    resourceId: number;
  }): Promise<any>;

  /** Returns structured content along with an output schema for client data validation */
  structuredContent(input: {
    /**
     * City name or zip code
     * @minLength 1
     */
    location: string;
  }): Promise<{
    /** Temperature in celsius */
    temperature: number;
    /** Weather conditions description */
    conditions: string;
    /** Humidity percentage */
    humidity: number;
  }>;

  /** Create an issue (2020-12 schema with $defs, $ref, anyOf with null and enums) */
  createIssue(input: {
    /** @minLength 1 */
    title: string;
    /** Markdown body, or null for none. */
    body?: string | null;
    priority: "low" | "medium" | "high";
    /** @uniqueItems */
    labels?: {
      name: string;
      /** @pattern ^#[0-9a-f]{6}$ */
      color?: string;
      [key: string]: unknown;
    }[];
    assignee?: {
      login: string;
      id?: number;
    } | null;
    estimate?: 1 | 2 | 3 | 5 | 8 | null;
  }): Promise<{
    number: number;
    state: "open";
    /** @format uri */
    url: string;
    [key: string]: unknown;
  }>;

  /** Return the resource tree under a path (a recursive schema) */
  getResourceTree(input?: {
    /** @default "/" */
    root?: string;
    /** @minimum 0 */
    depth?: number | null;
  }): Promise<{
    name: string;
    kind: "file" | "directory";
    /** Present for directories. */
    children?: unknown[];
  }>;

  /** Query rows (OpenAPI 3.0-style nullable, oneOf, tuples and records) */
  queryRows(input: {
    table: string;
    /** Column equality filters. */
    where?: Record<string, string | number | boolean>;
    /**
     * Offset and limit.
     * @minItems 2
     */
    range?: [number, number];
    orderBy?: string | null;
    mode?: "fast" | "exact" | 0;
    [key: string]: unknown;
  }): Promise<{
    columns: string[];
    rows: (string | number | boolean | null)[][];
    next?: string | null;
    "x-debug"?: unknown;
    [key: string]: unknown;
  }>;
}

interface Tools {
  /** A strict tool beside the lenient namespace. */
  note(input: {
    text: string;
  }): Promise<Record<string, never>>;
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
  readonly everything: EverythingTools;
  readonly codemode: Tools;
  readonly console: CodeModeConsole;
  readonly result: CodeModeResult;
}

type AgentProgram = (scope: AgentProgramScope) => unknown;
