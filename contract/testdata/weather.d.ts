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
