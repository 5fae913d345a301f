interface PTools {
  /** Close the browser and all open tabs. */
  browser_close(input?: Record<string, never>): Promise<any>;

  /** Returns all console messages */
  browser_console_messages(input?: {
    /** Return all console messages since the beginning of the session, not just since the last navigation. Defaults to false. */
    all?: boolean;
    /** File name to save the console messages to. Relative file names are resolved against the workspace root. If not provided, messages are returned as text. */
    filename?: string;
    /**
     * Level of the console messages to return. Each level includes the messages of more severe levels. Defaults to "info".
     * @default "info"
     */
    level?: "error" | "warning" | "info" | "debug";
  }): Promise<any>;

  /** Returns a numbered list of network requests since loading the page. Use browser_network_request with the number to get full details. */
  browser_network_requests(input?: {
    /** Return all network requests since the beginning of the session, not just since the last navigation. Defaults to false. */
    all?: boolean;
    /** File name to save the network requests to. Relative file names are resolved against the workspace root. If not provided, requests are returned as text. */
    filename?: string;
    /** Only return requests whose URL matches this regexp (e.g. "/api/.*user"). */
    filter?: string;
    /**
     * Whether to include successful static resources like images, fonts, scripts, etc. Defaults to false.
     * @default false
     */
    static?: boolean;
  }): Promise<any>;

  /** Take a screenshot of the current page. Use browser_snapshot for actions by default. With the vision capability enabled, use screenshot coordinates with the coordinate-based mouse tools for elements not exposed in the accessibility snapshot. */
  browser_take_screenshot(input?: {
    /** Human-readable element description used to obtain permission to interact with the element */
    element?: string;
    /** File name to save the screenshot to. Relative file names are resolved against the workspace root. If not specified, the screenshot is saved into the output directory as `page-{timestamp}.{png|jpeg|webp}`. */
    filename?: string;
    /** When true, takes a screenshot of the full scrollable page, instead of the currently visible viewport. Cannot be used with element screenshots. */
    fullPage?: boolean;
    /**
     * Image resolution scale. "css" produces a screenshot sized in CSS pixels (smaller, consistent across devices). "device" produces a high-resolution screenshot using device pixels (larger, accounts for the device pixel ratio). Default is css.
     * @default "css"
     */
    scale?: "css" | "device";
    /** Exact target element reference from the page snapshot, or a unique element selector */
    target?: string;
    /** Image format for the screenshot. If unset, inferred from the filename extension, otherwise png. */
    type?: "png" | "jpeg" | "webp";
  }): Promise<any>;

  /** Perform a single action on the page (e.g., click, type). */
  browserbase_stagehand_act(input: {
    /**
     * The action to perform. Should be as atomic and specific as possible,
     *       i.e. 'Click the sign in button' or 'Type 'hello' into the search input'.
     */
    action: string;
    /**
     * Variables used in the action template. ONLY use variables if you're dealing
     *       with sensitive data or dynamic content. When using variables, you MUST have the variable
     *       key in the action template. ie: {"action": "Fill in the password", "variables": {"password": "123456"}}
     */
    variables?: Record<string, unknown>;
  }): Promise<any>;

  /** Deprecated compatibility entry point. Use firecrawl_scrape once per known URL with formats: ["json"] and jsonOptions containing the prompt and schema. Use firecrawl_agent for multi-source research when the URLs are not known or the data spans several sites. */
  firecrawl_extract(input: {
    allowExternalLinks?: boolean;
    enableWebSearch?: boolean;
    includeSubdomains?: boolean;
    prompt?: string;
    schema?: Record<string, unknown>;
    urls: string[];
  }): Promise<any>;

  /**
   * Scrape one URL and return its content: markdown by default, or HTML, links, screenshots, branding data, a targeted answer, or JSON matching a supplied schema. Use it when the request identifies a page and needs its content or defined fields. Use `firecrawl_search` when additional web sources are needed; on an authenticated session, `firecrawl_map` lists a site's URLs and `firecrawl_crawl` collects a set of pages.
   *
   * Firecrawl may serve recently indexed content; set `maxAge: 0` for a live fetch or a smaller `maxAge` to bound staleness. A successful response does not by itself confirm the page is still current. Browser actions can change the live page when interactive actions are enabled. Authenticated responses can include a `metadata.scrapeId` for optional scrape feedback.
   *
   * On an authenticated session with Alexandria access, `firecrawl_search` with `sources` unset and `firecrawl_find_tools` can discover providers for the same fields across several pages; a matching provider returns typed records in one call. Keyless sessions have no provider matches.
   *
   * Alexandria mode, on an authenticated session with Alexandria access: `alexandria` selects catalogued capability execution and is mutually exclusive with `url`.
   */
  firecrawl_scrape(input?: {
    actions?: {
      direction?: "up" | "down";
      fullPage?: boolean;
      key?: string;
      milliseconds?: number;
      script?: string;
      selector?: string;
      text?: string;
      type: "wait" | "screenshot" | "scroll" | "scrape" | "click" | "write" | "press" | "executeJavascript" | "generatePDF";
      [key: string]: unknown;
    }[];
    /** Catalogued Alexandria capability invocation, mutually exclusive with url. One {provider, capability, options} object or an array of 1-10, with contracts available through firecrawl_search or firecrawl_find_tools. Each call may include version to pin a published workflow; omitting it uses latest. Only requestId and timeout are supported alongside alexandria. The selected contract marks required inputs and any requiresOneOf groups (at least one member per group); it may include example.request/example.response and response.key (which may differ from records). Where pagination is declared, its fields govern paging with the same filters; catalogue next is separate from provider pagination. Returns per-capability results in data.alexandria with data, records, or an error with a code; individual capabilities can fail even when the outer response succeeds. Requires an API key on a team with Alexandria enabled. Some providers require accepted terms; blocked requests return the applicable requirements. */
    alexandria?: {
      /**
       * Capability address as returned by search or discover, e.g. "series/observations".
       * @minLength 1
       */
      capability: string;
      /** Capability options as declared by its contract. */
      options?: Record<string, unknown>;
      /**
       * Provider slug, e.g. "fred".
       * @minLength 1
       */
      provider: string;
      /**
       * Optional published workflow version. Omit to use the latest version.
       * @minLength 1
       * @maxLength 128
       */
      version?: string;
      [key: string]: unknown;
    } | {
      /**
       * Capability address as returned by search or discover, e.g. "series/observations".
       * @minLength 1
       */
      capability: string;
      /** Capability options as declared by its contract. */
      options?: Record<string, unknown>;
      /**
       * Provider slug, e.g. "fred".
       * @minLength 1
       */
      provider: string;
      /**
       * Optional published workflow version. Omit to use the latest version.
       * @minLength 1
       * @maxLength 128
       */
      version?: string;
      [key: string]: unknown;
    }[];
    /** URL mode only: include domain-matched Alexandria tools for the page in tools on the returned document. Ignored with alexandria. */
    domainTools?: boolean;
    excludeTags?: string[];
    formats?: ("markdown" | "html" | "rawHtml" | "screenshot" | "links" | "summary" | "changeTracking" | "branding" | "json" | "query" | "audio")[];
    includeTags?: string[];
    jsonOptions?: {
      prompt?: string;
      schema?: Record<string, unknown>;
    };
    location?: {
      country?: string;
      languages?: string[];
    };
    lockdown?: boolean;
    maxAge?: number;
    mobile?: boolean;
    onlyMainContent?: boolean;
    parsers?: "pdf"[];
    pdfOptions?: {
      /**
       * @minimum 1
       * @maximum 10000
       */
      maxPages?: number;
    };
    profile?: {
      name: string;
      saveChanges?: boolean;
    };
    proxy?: "basic" | "stealth" | "enhanced" | "auto";
    queryOptions?: {
      /** @default "freeform" */
      mode?: "directQuote" | "freeform";
      /** @maxLength 10000 */
      prompt: string;
    };
    redactPII?: boolean;
    removeBase64Images?: boolean;
    /**
     * Idempotency key bound to one Alexandria execution payload. Generated when omitted and returned with the result.
     * @pattern ^[A-Za-z0-9._:-]{1,128}$
     */
    requestId?: string;
    screenshotOptions?: {
      fullPage?: boolean;
      quality?: number;
      viewport?: {
        height: number;
        width: number;
      };
    };
    skipTlsVerification?: boolean;
    storeInCache?: boolean;
    /**
     * Execution timeout in milliseconds.
     * @exclusiveMinimum 0
     */
    timeout?: number;
    /** URL mode only: domain discovery detail, summary by default; compact returns provider/capability/description, full includes contracts. Ignored with alexandria. */
    toolDetail?: "compact" | "summary" | "full";
    /** @format uri */
    url?: string;
    waitFor?: number;
    zeroDataRetention?: boolean;
  }): Promise<any>;

  /** Get logs from Kubernetes resources like pods, deployments, or jobs */
  kubectl_logs(input: {
    /** Container name (required when pod has multiple containers) */
    container?: string;
    /**
     * Kubeconfig Context to use for the command (optional - defaults to null)
     * @default ""
     */
    context?: string;
    /**
     * Follow logs output (not recommended, may cause timeouts)
     * @default false
     */
    follow?: boolean;
    /** Filter resources by label selector */
    labelSelector?: string;
    /** Name of the resource */
    name: string;
    /**
     * Kubernetes namespace
     * @default "default"
     */
    namespace?: string;
    /**
     * Include logs from previously terminated containers
     * @default false
     */
    previous?: boolean;
    /** Type of resource to get logs from */
    resourceType: "pod" | "deployment" | "job" | "cronjob";
    /** Show logs since relative time (e.g. '5s', '2m', '3h') */
    since?: string;
    /** Show logs since absolute time (RFC3339) */
    sinceTime?: string;
    /** Number of lines to show from end of logs */
    tail?: number;
    /**
     * Include timestamps in logs
     * @default false
     */
    timestamps?: boolean;
    [key: string]: unknown;
  }): Promise<any>;

  /** Manage the rollout of a resource (e.g., deployment, daemonset, statefulset) */
  kubectl_rollout(input: {
    /**
     * Kubeconfig Context to use for the command (optional - defaults to null)
     * @default ""
     */
    context?: string;
    /** Name of the resource */
    name: string;
    /**
     * Kubernetes namespace
     * @default "default"
     */
    namespace?: string;
    /**
     * Type of resource to manage rollout for
     * @default "deployment"
     */
    resourceType?: "deployment" | "daemonset" | "statefulset";
    /** Revision to rollback to (for undo subcommand) */
    revision?: number;
    /**
     * Rollout subcommand to execute
     * @default "status"
     */
    subCommand?: "history" | "pause" | "restart" | "resume" | "status" | "undo";
    /** The length of time to wait before giving up (e.g., '30s', '1m', '2m30s') */
    timeout?: string;
    /** Revision to roll back to (for history subcommand) */
    toRevision?: number;
    /**
     * Watch the rollout status in real-time until completion
     * @default false
     */
    watch?: boolean;
    [key: string]: unknown;
  }): Promise<any>;
}

interface Tools {
  /**
   * Searches the tools (and saved programs, where there are any); at most 50
   * results, best first. Returns paths, not schemas: pass one to describe for
   * its declarations.
   */
  search(query: string): Promise<SearchOutput>;

  /** TypeScript declarations of a namespace, a namespace.tool or a saved program's name. */
  describe(target: string): Promise<DescribeOutput>;

  /**
   * Runs fn and returns its value. Wrap work that is not a tool call and may
   * give another value each time it runs (Date.now(), Math.random(), fetch):
   * where executions are recorded, its value is recorded and, when the
   * execution runs again, returned without running fn.
   */
  step<T>(name: string, fn: () => T | Promise<T>): Promise<T>;
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
  readonly p: PTools;
  readonly codemode: Tools;
  readonly console: CodeModeConsole;
  readonly result: CodeModeResult;
}

type AgentProgram = (scope: AgentProgramScope) => unknown;
