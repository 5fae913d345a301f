interface MemoryTools {
  /**
   * Read the whole knowledge graph.
   * @readonly
   * @openWorld false
   */
  read_graph(input?: Record<string, unknown>): Promise<any>;
}

interface Tools {
  /**
   * Searches tool methods and saved snippets; at most 50 results, ranked.
   * Returns paths, not schemas: pass one to describe for its declarations.
   */
  search(query: string): Promise<SearchOutput>;

  /** TypeScript declarations of a namespace, a namespace.method or a snippet name. */
  describe(target: string): Promise<DescribeOutput>;

  /**
   * Runs fn once and records its result; when the execution is replayed
   * (after an approval), returns the recorded result without running fn.
   * Wrap non-deterministic or side-effecting work that is not a tool call,
   * such as Date.now() or Math.random().
   */
  step<T>(name: string, fn: () => T | Promise<T>): Promise<T>;

  /**
   * Runs the saved snippet name with input. A missing snippet, or one whose
   * recorded namespaces are not all configured, resolves to an object with
   * an error property instead of throwing.
   */
  run(name: string, input?: unknown): Promise<unknown>;
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

interface AgentProgramScope {
  readonly memory: MemoryTools;
  readonly codemode: Tools;
  readonly console: CodeModeConsole;
  readonly result: CodeModeResult;
}

type AgentProgram = (scope: AgentProgramScope) => unknown;
