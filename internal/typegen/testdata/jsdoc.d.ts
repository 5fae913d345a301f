interface Tools {
  /**
   * Write a file.
   *
   * Overwrites any existing file at path.
   * Paths look like /tmp/*\/name.txt, and *\/ is escaped.
   */
  writeFile(input: {
    /** Absolute path. */
    path: string;
    /**
     * Line one.
     * Line two.
     *
     *   Indented line four.
     */
    contents: string;
    mode?: number;
  }): Promise<{
    /** Bytes written; comments like /* this *\/ stay readable. */
    bytes: number;
  }>;

  /** Check the service is up. *\/ <- not the end */
  ping(input: Record<string, never>): Promise<Record<string, never>>;

  /**
   * Controls from an upstream server: NUL \x00, ESC \x1b[31mred\x1b[0m, CR
   * and CRLF
   * lines, LS
   * and PS
   * lines.
   * Bidi \u202eevil\u202c, isolate \u2066x\u2069, C1 \x9b, DEL \x7f, zero width \u200b, invalid UTF-8 is not JSON.
   * None closes the comment: *\/, *\x00/, *\x1b[0m/, *\u202e/.
   */
  hostile(input: {
    /** tab	and bell \x07 *\/ end */
    q: string;
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
  /**
   * Program input.
   * Second line of the input description.
   */
  readonly input: {
    /** Free text. Must not contain *\/ or the comment would end. */
    readonly note: string;
  };
  readonly codemode: Tools;
  readonly console: CodeModeConsole;
  readonly result: CodeModeResult;
}

type AgentProgram = (scope: AgentProgramScope) => unknown;
