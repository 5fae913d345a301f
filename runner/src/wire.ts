// The wire protocol of wire/PROTOCOL.md, on the JavaScript side: frames
// (4-byte big-endian length + CBOR map with small-integer keys) and the
// runner loop that serves execute, tool-result and cancel messages.

import { jsonParse, jsonStringify } from "./intrinsics";
import { decode, encode, utf8Decode, utf8Encode, type Value } from "./cbor";
import { Execution, type Content, type Finish, type Host, type Limits, type Namespace } from "./core";

export const protocolVersion = 1;
export const maxFrameSize = 16 << 20;

const K = {
  kind: 0, execution: 1, version: 2, runner: 3, source: 4, filename: 5, hasInput: 6, input: 7, namespaces: 8,
  seq: 9, namespace: 10, tool: 11, site: 12, output: 13, error: 14, stream: 15, text: 16, outcome: 17, content: 18,
} as const;

const Kind = { ready: 1, execute: 2, cancel: 3, toolCall: 4, toolResult: 5, output: 6, result: 7 } as const;

/** A channel carries bytes both ways; the runner calls write, the platform calls receive. */
export interface Channel {
  write(bytes: Uint8Array): void;
  /** close ends the channel after a protocol fault. */
  close(reason: Error): void;
}

export interface RunnerOptions {
  channel: Channel;
  /** importModule evaluates source as a fresh root ES module named filename and returns its namespace. */
  importModule(source: string, filename: string, execution: number): Promise<Record<string, unknown>>;
  runner: string;
  limits: Limits;
}

function frame(m: Map<number, Value>): Uint8Array {
  const payload = encode(m);
  if (payload.length > maxFrameSize) throw new RangeError(`message of ${payload.length} bytes exceeds the 16 MiB frame limit`);
  const out = new Uint8Array(4 + payload.length);
  out[0] = payload.length >>> 24;
  out[1] = (payload.length >>> 16) & 255;
  out[2] = (payload.length >>> 8) & 255;
  out[3] = payload.length & 255;
  out.set(payload, 4);
  return out;
}

function msg(entries: [number, Value | undefined][]): Map<number, Value> {
  const m = new Map<number, Value>();
  for (const [k, v] of entries) {
    if (v === undefined || v === false || v === "" || v === 0) continue;
    m.set(k, v);
  }
  return m;
}

function errorValue(e: { name: string; message: string; stack?: string }): Map<number, Value> {
  return msg([[1, e.name], [2, e.message], [3, e.stack]]);
}

/**
 * startRunner sends ready and returns the function the platform calls with
 * each chunk of bytes read from the channel.
 */
export function startRunner(opts: RunnerOptions): (chunk: Uint8Array) => void {
  const executions = new Map<number, Execution>();
  let buffered = new Uint8Array(0);
  let dead = false;

  const send = (m: Map<number, Value>) => {
    if (dead) return;
    opts.channel.write(frame(m));
  };
  const fault = (reason: Error) => {
    if (dead) return;
    dead = true;
    executions.clear();
    opts.channel.close(reason);
  };

  const execute = (m: Map<number, Value>) => {
    const id = m.get(K.execution) as number;
    if (executions.has(id)) {
      send(msg([[K.kind, Kind.result], [K.execution, id], [K.outcome, "program-failed"], [K.error, errorValue({ name: "Error", message: "duplicate execution id" })]]));
      return;
    }
    const filename = m.get(K.filename) as string;
    const hasInput = m.get(K.hasInput) === true;
    let input: unknown;
    if (hasInput) input = jsonParse(utf8Decode(m.get(K.input) as Uint8Array));
    const namespaces: Namespace[] = ((m.get(K.namespaces) as Map<number, Value>[] | undefined) ?? []).map((ns) => ({
      name: ns.get(1) as string,
      tools: ((ns.get(2) as string[] | undefined) ?? []).slice(),
    }));
    const host: Host = {
      toolCall(seq, namespace, tool, inputJSON) {
        if (!executions.has(id)) return;
        send(msg([[K.kind, Kind.toolCall], [K.execution, id], [K.seq, seq], [K.namespace, namespace], [K.tool, tool], [K.input, utf8Encode(inputJSON)]]));
      },
      output(stream, text) {
        if (!executions.has(id)) return;
        send(msg([[K.kind, Kind.output], [K.execution, id], [K.stream, stream], [K.text, text]]));
      },
      finish(result: Finish) {
        if (!executions.delete(id)) return;
        if (result.outcome === "success") {
          const content = result.content.map((c: Content) =>
            c.type === "text" ? msg([[1, "text"], [2, c.text]]) : msg([[1, "image"], [3, c.data], [4, c.mimeType]]),
          );
          const m = msg([[K.kind, Kind.result], [K.execution, id], [K.outcome, "success"]]);
          if (content.length > 0) m.set(K.content, content);
          try {
            send(m);
          } catch (error) {
            const e = error as Error;
            send(msg([[K.kind, Kind.result], [K.execution, id], [K.outcome, "program-failed"], [K.error, errorValue({ name: e.name, message: e.message })]]));
          }
        } else {
          send(msg([[K.kind, Kind.result], [K.execution, id], [K.outcome, "program-failed"], [K.error, errorValue(result.error)]]));
        }
      },
    };
    const execution = new Execution(host, { filename, hasInput, input, namespaces, limits: opts.limits });
    executions.set(id, execution);
    const source = (m.get(K.source) as string | undefined) ?? "";
    void execution.run(() => opts.importModule(source, filename, id));
  };

  const handle = (m: Map<number, Value>) => {
    const kind = m.get(K.kind);
    const id = m.get(K.execution);
    if (typeof id !== "number" || id < 1) throw new Error(`message of kind ${String(kind)} has no execution id`);
    switch (kind) {
      case Kind.execute:
        execute(m);
        return;
      case Kind.toolResult: {
        const seq = m.get(K.seq) as number;
        const output = m.get(K.output);
        const error = m.get(K.error) as Map<number, Value> | undefined;
        const execution = executions.get(id);
        if (execution === undefined) return;
        if (output instanceof Uint8Array) execution.deliver(seq, true, utf8Decode(output));
        else execution.deliver(seq, false, jsonStringify({ name: error?.get(1) ?? "Error", message: error?.get(2) ?? "" }));
        return;
      }
      case Kind.cancel:
        executions.delete(id);
        return;
      default:
        throw new Error(`unexpected message kind ${String(kind)} from the host`);
    }
  };

  send(msg([[K.kind, Kind.ready], [K.version, protocolVersion], [K.runner, opts.runner]]));

  return (chunk: Uint8Array) => {
    if (dead) return;
    try {
      const joined = new Uint8Array(buffered.length + chunk.length);
      joined.set(buffered);
      joined.set(chunk, buffered.length);
      let at = 0;
      while (joined.length - at >= 4) {
        const n = ((joined[at] << 24) >>> 0) + (joined[at + 1] << 16) + (joined[at + 2] << 8) + joined[at + 3];
        if (n > maxFrameSize) throw new RangeError(`frame of ${n} bytes exceeds the 16 MiB limit`);
        if (joined.length - at - 4 < n) break;
        const m = decode(joined.subarray(at + 4, at + 4 + n));
        at += 4 + n;
        if (!(m instanceof Map)) throw new Error("message is not a CBOR map");
        handle(m);
      }
      buffered = joined.slice(at);
    } catch (error) {
      fault(error instanceof Error ? error : new Error(String(error)));
    }
  };
}
