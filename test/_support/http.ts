/*
 * Shared helpers for the runtime and database suites: a captured logger,
 * a Handler-built server on 127.0.0.1:0 closed in `t.after`, an HTTP client
 * that reports incomplete responses instead of throwing, a raw-bytes
 * client over node:net, and a child-process runner that waits for log
 * lines (waiting for a line is an event, never a timing assertion).
 */
import { spawn, type ChildProcess, type StdioOptions } from "node:child_process";
import { request, type IncomingHttpHeaders, type RequestOptions } from "node:http";
import { connect, type AddressInfo } from "node:net";
import { Writable } from "node:stream";
import type { TestContext } from "node:test";
import { newLogger, type Logger } from "../../lib/http/index.ts";
import { Handler, type Options } from "../../lib/index.ts";
import { startServer } from "./server.ts";

/** One parsed log line. */
export type LogLine = Record<string, unknown>;

/** A logger whose JSON lines are kept for assertions. */
export interface CapturedLog {
  logger: Logger;
  /** Every line logged so far, parsed. */
  lines(): LogLine[];
  /** Resolves with the first line (already logged or future) matching `match`. */
  waitFor(match: (line: LogLine) => boolean): Promise<LogLine>;
}

/** Returns a logger writing to memory. */
export function captureLog(): CapturedLog {
  const lines: LogLine[] = [];
  const waiters: { match: (line: LogLine) => boolean; resolve: (line: LogLine) => void }[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      for (const text of String(chunk).split("\n")) {
        if (text === "") continue;
        const parsed: unknown = JSON.parse(text);
        if (typeof parsed !== "object" || parsed === null) throw new Error("captureLog: not a JSON object");
        const line = Object.fromEntries(Object.entries(parsed));
        lines.push(line);
        for (const w of waiters.filter((w) => w.match(line))) {
          waiters.splice(waiters.indexOf(w), 1);
          w.resolve(line);
        }
      }
      callback();
    },
  });
  return {
    logger: newLogger({ stream, level: "debug" }),
    lines: () => [...lines],
    waitFor: (match) => {
      const found = lines.find(match);
      if (found !== undefined) return Promise.resolve(found);
      return new Promise((resolve) => waiters.push({ match, resolve }));
    },
  };
}

/** A running test server. */
export interface TestServer {
  port: number;
  log: CapturedLog;
}

/** Builds `Handler(opts)` with a captured logger and serves it on 127.0.0.1:0 until the test ends. */
export async function startHandler(t: TestContext, opts: Options): Promise<TestServer> {
  const log = captureLog();
  const [handler, cleanup] = Handler({ Logger: log.logger, ...opts });
  const { port } = await startServer(t, handler, { cleanup });
  return { port, log };
}

/** What `fetchHTTP` saw: `complete` is false when the body was cut, `error` set when the exchange failed. */
export interface Reply {
  status: number | undefined;
  headers: IncomingHttpHeaders;
  body: string;
  complete: boolean;
  error: NodeJS.ErrnoException | undefined;
}

/** Request options plus a body to send (a list is sent chunked, one write each). */
export type FetchOptions = RequestOptions & { body?: string | readonly string[] };

/** Makes one request on a fresh connection and never rejects. */
export function fetchHTTP(port: number, path: string, options: FetchOptions = {}): Promise<Reply> {
  const { body, ...rest } = options;
  return new Promise((resolve) => {
    const reply: Reply = { status: undefined, headers: {}, body: "", complete: false, error: undefined };
    let settled = false;
    const settle = (): void => {
      if (settled) return;
      settled = true;
      resolve(reply);
    };
    const req = request({ host: "127.0.0.1", port, path, agent: false, ...rest }, (res) => {
      reply.status = res.statusCode;
      reply.headers = res.headers;
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => (reply.body += chunk));
      res.on("error", (err) => (reply.error = err));
      res.on("close", () => {
        reply.complete = res.complete;
        settle();
      });
    });
    req.on("error", (err) => {
      reply.error ??= err;
      settle();
    });
    if (Array.isArray(body)) for (const chunk of body) req.write(chunk);
    else if (typeof body === "string") req.write(body);
    req.end();
  });
}

/** Sends `text` as-is over TCP and resolves with everything the server wrote before closing. */
export function rawRequest(port: number, text: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1", () => socket.end(text));
    let out = "";
    socket.setEncoding("latin1");
    socket.on("data", (chunk: string) => (out += chunk));
    socket.on("error", (err: NodeJS.ErrnoException) => (err.code === "ECONNRESET" ? resolve(out) : reject(err)));
    socket.on("close", () => resolve(out));
  });
}

/** Returns the status code of the first response in raw HTTP text, or undefined. */
export function rawStatus(text: string): number | undefined {
  const m = /^HTTP\/1\.[01] (\d{3}) /.exec(text);
  return m?.[1] === undefined ? undefined : Number(m[1]);
}

/** A child process whose stderr JSON log lines are collected. */
export interface Child {
  process: ChildProcess;
  /** Resolves with the first stderr log line whose `msg` equals `msg`. */
  waitForLog(msg: string): Promise<LogLine>;
  /** Resolves with the first stderr log line matching `match`; rejects if the child exits first. */
  waitFor(match: (line: LogLine) => boolean): Promise<LogLine>;
  /** Every stderr log line so far. */
  lines(): LogLine[];
  /** Resolves with the exit code (or the signal name). */
  exited: Promise<number | string>;
}

/** Spawns `node script ...args`; the child is killed when the test ends if still running. */
export function spawnChild(
  t: TestContext,
  script: string,
  args: readonly string[],
  options: { env?: NodeJS.ProcessEnv; stdio?: StdioOptions; cwd?: string } = {},
): Child {
  const child = spawn(process.execPath, [script, ...args], {
    env: options.env ?? process.env,
    ...(options.cwd !== undefined && { cwd: options.cwd }),
    stdio: options.stdio ?? ["ignore", "pipe", "pipe"],
  });
  const lines: LogLine[] = [];
  const waiters: { match: (line: LogLine) => boolean; resolve: (line: LogLine) => void }[] = [];
  let buffered = "";
  child.stderr?.setEncoding("utf8");
  child.stderr?.on("data", (chunk: string) => {
    buffered += chunk;
    let nl: number;
    while ((nl = buffered.indexOf("\n")) >= 0) {
      const text = buffered.slice(0, nl);
      buffered = buffered.slice(nl + 1);
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch {
        parsed = { msg: text };
      }
      if (typeof parsed !== "object" || parsed === null) continue;
      const line = Object.fromEntries(Object.entries(parsed));
      lines.push(line);
      for (const w of waiters.filter((w) => w.match(line))) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve(line);
      }
    }
  });
  const exited = new Promise<number | string>((resolve) => child.once("exit", (code, signal) => resolve(code ?? signal ?? "unknown")));
  t.after(async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill("SIGKILL");
      await exited;
    }
  });
  return {
    process: child,
    lines: () => [...lines],
    exited,
    waitFor,
    waitForLog: (msg) => waitFor((l) => l["msg"] === msg),
  };

  function waitFor(match: (line: LogLine) => boolean): Promise<LogLine> {
    const found = lines.find(match);
    if (found !== undefined) return Promise.resolve(found);
    return Promise.race([
      new Promise<LogLine>((resolve) => waiters.push({ match, resolve })),
      exited.then((code): never => {
        throw new Error(`child exited (${code}) before the awaited log line: ${JSON.stringify(lines)}`);
      }),
    ]);
  }
}

/** Returns the port of a listening server's TCP address. */
export function portOf(address: AddressInfo | string | null): number {
  if (address === null || typeof address === "string") throw new Error("portOf: not a TCP address");
  return address.port;
}

/** The path of a compiled support script, next to this file in dist/. */
export function supportScript(name: string): string {
  return new URL(`./${name}`, import.meta.url).pathname;
}
