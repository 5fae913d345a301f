interface FilesystemTools {
  /** Read the complete contents of a file from the file system as text. Use the 'head' parameter to read only the first N lines of a file, or the 'tail' parameter to read only the last N lines of a file. Only works within allowed directories. */
  read_text_file(input: {
    path: string;
    /** If provided, returns only the last N lines of the file */
    tail?: number;
    /** If provided, returns only the first N lines of the file */
    head?: number;
  }): Promise<{
    content: string;
    [key: string]: unknown;
  }>;

  /** Read the contents of multiple files simultaneously. */
  read_multiple_files(input: {
    /**
     * Array of file paths to read. Each path must be a string pointing to a valid file within allowed directories.
     * @minItems 1
     */
    paths: string[];
  }): Promise<any>;

  /**
   * Make line-based edits to a text file. Each edit replaces exact line sequences with new content.
   * Returns a git-style diff showing the changes made.
   */
  edit_file(input: {
    path: string;
    edits: {
      /** Text to search for - must match exactly */
      oldText: string;
      /** Text to replace with */
      newText: string;
    }[];
    /**
     * Preview changes using git-style diff format
     * @default false
     */
    dryRun?: boolean;
  }): Promise<any>;

  /** Get a detailed listing of all files and directories in a specified path, including sizes. */
  list_directory_with_sizes(input: {
    path: string;
    /**
     * Sort entries by name or size
     * @default "name"
     */
    sortBy?: "name" | "size";
  }): Promise<any>;

  /** Recursively search for files and directories matching a pattern. */
  search_files(input: {
    path: string;
    pattern: string;
    excludePatterns?: string[];
  }): Promise<any>;

  /** Retrieve detailed metadata about a file or directory. */
  get_file_info(input: {
    path: string;
  }): Promise<{
    size: number;
    /** @format date-time */
    created?: string;
    /** @format date-time */
    modified?: string;
    isDirectory: boolean;
    permissions?: string;
    [key: string]: string | number | boolean | undefined;
  }>;

  /** Returns the list of directories that this server is allowed to access. */
  list_allowed_directories(input?: Record<string, unknown>): Promise<any>;
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
  readonly filesystem: FilesystemTools;
  readonly console: CodeModeConsole;
  readonly result: CodeModeResult;
}

type AgentProgram = (scope: AgentProgramScope) => unknown;
