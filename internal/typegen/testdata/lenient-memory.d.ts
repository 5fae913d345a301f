interface MemoryTools {
  /** Create multiple new entities in the knowledge graph */
  create_entities(input: {
    entities: {
      /** The name of the entity */
      name: string;
      /** The type of the entity */
      entityType: string;
      /** An array of observation contents associated with the entity */
      observations: string[];
    }[];
  }): Promise<{
    entities: {
      /** The name of the entity */
      name: string;
      /** The type of the entity */
      entityType: string;
      /** An array of observation contents associated with the entity */
      observations: string[];
    }[];
  }>;

  /** Create multiple new relations between entities in the knowledge graph. Relations should be in active voice */
  create_relations(input: {
    relations: {
      /** The name of the entity where the relation starts */
      from: string;
      /** The name of the entity where the relation ends */
      to: string;
      /** The type of the relation */
      relationType: string;
    }[];
  }): Promise<{
    relations: {
      /** The name of the entity where the relation starts */
      from: string;
      /** The name of the entity where the relation ends */
      to: string;
      /** The type of the relation */
      relationType: string;
    }[];
  }>;

  /** Add new observations to existing entities in the knowledge graph */
  add_observations(input: {
    observations: {
      /** The name of the entity to add the observations to */
      entityName: string;
      /** An array of observation contents to add */
      contents: string[];
    }[];
  }): Promise<any>;

  /** Delete multiple entities and their associated relations from the knowledge graph */
  delete_entities(input: {
    /** An array of entity names to delete */
    entityNames: string[];
  }): Promise<{
    success: boolean;
    message: string;
  }>;

  /** Read the entire knowledge graph */
  read_graph(input?: Record<string, never>): Promise<{
    entities: {
      /** The name of the entity */
      name: string;
      /** The type of the entity */
      entityType: string;
      /** An array of observation contents associated with the entity */
      observations: string[];
    }[];
    relations: {
      /** The name of the entity where the relation starts */
      from: string;
      /** The name of the entity where the relation ends */
      to: string;
      /** The type of the relation */
      relationType: string;
    }[];
  }>;

  /** Search for nodes in the knowledge graph based on a query */
  search_nodes(input: {
    /** The search query to match against entity names, types, and observation content */
    query: string;
  }): Promise<{
    entities: {
      /** The name of the entity */
      name: string;
      /** The type of the entity */
      entityType: string;
      /** An array of observation contents associated with the entity */
      observations: string[];
    }[];
    relations: {
      /** The name of the entity where the relation starts */
      from: string;
      /** The name of the entity where the relation ends */
      to: string;
      /** The type of the relation */
      relationType: string;
    }[];
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
  readonly memory: MemoryTools;
  readonly console: CodeModeConsole;
  readonly result: CodeModeResult;
}

type AgentProgram = (scope: AgentProgramScope) => unknown;
