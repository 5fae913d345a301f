declare namespace InputTypes {
  /** A category and its subcategories. */
  interface Tree {
    name: string;
    children: InputTypes.Tree[];
  }
}

declare namespace CodemodeTypes {
  interface User {
    id: number;
    /** Who invited them; null for the first user. */
    invitedBy: CodemodeTypes.User | null;
    labels: Record<string, string>;
    /** Anything the store keeps. */
    extra: unknown;
    settings: CodemodeTypes.Record2;
  }

  interface User2 {
    login: string;
  }

  /** Nested settings. */
  interface Record2 {
    [key: string]: CodemodeTypes.Record2;
  }
}

interface Tools {
  /** A user and the user who invited them. */
  getUser(input: {
    id: number;
  }): Promise<CodemodeTypes.User>;

  /** Users of a shop. */
  listUsers(input: {
    after: string | null;
  }): Promise<{
    users: CodemodeTypes.User[];
    admins: CodemodeTypes.User2[];
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
    readonly tree: InputTypes.Tree;
  };
  readonly codemode: Tools;
  readonly console: CodeModeConsole;
  readonly result: CodeModeResult;
}

type AgentProgram = (scope: AgentProgramScope) => unknown;
