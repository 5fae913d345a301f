interface Tools {
  /** Fetch a URL. */
  httpGet(input: {
    url: string;
    headers?: {
      "Accept-Language"?: string;
      "If-None-Match"?: string;
    };
  }): Promise<{
    status: number;
    "content-length"?: number;
    "<html>&"?: string;
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
    readonly "content-type": string;
    readonly "x y"?: string;
    readonly $ok_1: string;
    readonly "1st"?: string;
    readonly "quote\"d"?: string;
    readonly "ünïcode"?: string;
    readonly ""?: string;
    readonly "a/b~c"?: string;
  };
  readonly codemode: Tools;
  readonly console: CodeModeConsole;
  readonly result: CodeModeResult;
}

type AgentProgram = (scope: AgentProgramScope) => unknown;
