declare namespace PetstoreTypes {
  /** A pet in the store. */
  interface Pet {
    id: number;
    name: string;
    tag?: PetstoreTypes.Tag;
    parent?: PetstoreTypes.Pet;
    owner?: PetstoreTypes.Owner;
    [key: string]: unknown;
  }

  type Tree = string | PetstoreTypes.Tree[];

  type Loop = string | PetstoreTypes.Loop2;

  type Self = unknown;

  type Tag = "cat" | "dog" | null;

  interface Owner {
    pets?: PetstoreTypes.Pet[];
    address?: PetstoreTypes.Address;
    [key: string]: unknown;
  }

  type Loop2 = unknown & {
    x?: number;
    [key: string]: unknown;
  };

  interface Address {
    city?: string;
  }
}

interface PetstoreTools {
  /** Returns one pet. */
  getPet(input: {
    petId: number;
  }): Promise<PetstoreTypes.Pet>;

  /** Adds a pet. */
  addPet(input: {
    body: PetstoreTypes.Pet;
    tree?: PetstoreTypes.Tree;
    loop?: PetstoreTypes.Loop;
    self?: PetstoreTypes.Self;
    missing?: unknown;
  }): Promise<PetstoreTypes.Pet[]>;
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
  readonly petstore: PetstoreTools;
  readonly console: CodeModeConsole;
  readonly result: CodeModeResult;
}

type AgentProgram = (scope: AgentProgramScope) => unknown;
