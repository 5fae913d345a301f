interface GithubTools {
  /**
   * Get a repository.
   * @throws {NotFoundError} The repository does not exist, or the token cannot see it.
   * @throws {RateLimitError} Too many requests; retry after retryAfter seconds. \@see the docs
   */
  get_repo(input: {
    repo: string;
  }): Promise<{
    stars: number;
  }>;

  /**
   * Delete a repository.
   * @throws {NotFoundError} The repository does not exist, or the token cannot see it.
   * @throws {ForbiddenError} The token may not delete it.
   */
  delete_repo(input: {
    repo: string;
  }): Promise<null>;
}

interface FilesTools {
  /**
   * Read a file's text.
   * @throws {FileMissingError} No such file.
   */
  read_file(input: {
    path: string;
    [key: string]: unknown;
  }): Promise<any>;
}

/**
 * The repository does not exist,
 * or the token cannot see it.
 *
 * Not a class: tell it by `e instanceof Error && e.name === "NotFoundError"`, then read it as `e as NotFoundError`.
 */
interface NotFoundError extends Error {
  readonly name: "NotFoundError";
  /** The repository asked for. */
  readonly repo: string;
  readonly suggestions?: string[];
}

/**
 * Too many requests; retry after retryAfter seconds. \@see the docs
 *
 * Not a class: tell it by `e instanceof Error && e.name === "RateLimitError"`, then read it as `e as RateLimitError`.
 */
interface RateLimitError extends Error {
  readonly name: "RateLimitError";
  readonly retryAfter: number;
  readonly limit?: {
    readonly used: number;
    readonly max: number;
    [key: string]: unknown;
  };
}

/**
 * The token may not delete it.
 *
 * Not a class: tell it by `e instanceof Error && e.name === "ForbiddenError"`, then read it as `e as ForbiddenError`.
 */
interface ForbiddenError extends Error {
  readonly name: "ForbiddenError";
}

/**
 * No such file.
 *
 * Not a class: tell it by `e instanceof Error && e.name === "FileMissingError"`, then read it as `e as FileMissingError`.
 */
interface FileMissingError extends Error {
  readonly name: "FileMissingError";
  readonly path?: string;
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
  readonly github: GithubTools;
  readonly files: FilesTools;
  readonly console: CodeModeConsole;
  readonly result: CodeModeResult;
}

type AgentProgram = (scope: AgentProgramScope) => unknown;
