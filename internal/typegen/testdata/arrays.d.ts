interface Tools {
  /** Search the catalogue. */
  searchProducts(input: {
    query: string;
    tags?: ("new" | "sale" | "used")[];
  }): Promise<{
    /** Matches, best first. */
    products: {
      id: string;
      name: string;
      price: number;
      inStock: boolean;
      variants: {
        sku: string;
        color?: string;
      }[];
      discontinuedAt?: null;
    }[];
    nextPage?: string;
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

interface AgentProgramScope {
  readonly input: {
    readonly ids: string[];
    readonly matrix?: number[][];
  };
  readonly codemode: Tools;
  readonly console: CodeModeConsole;
  readonly result: CodeModeResult;
}

type AgentProgram = (scope: AgentProgramScope) => unknown;
