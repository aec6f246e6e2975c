/*
 * Listener selection (SPEC §4.4 `Serve`): `Socket`, else `Addr`, else the
 * systemd-activated listener (sd_listen_fds(3): LISTEN_FDS >= 1 and
 * LISTEN_PID absent or ours; fd 3), else ":8080".
 */
import { lstatSync, unlinkSync } from "node:fs";
import type { Server } from "node:http";
import { connect } from "node:net";
import { HTTPError } from "../http/index.ts";

/** The listen address used when nothing else is configured (SPEC §8). */
export const DEFAULT_ADDR: string = ":8080";

/** sd_listen_fds(3): the first passed file descriptor. */
export const SD_LISTEN_FDS_START: number = 3;

/** Where a server listens. */
export type Listen = { socket: string } | { fd: number } | { host: string | undefined; port: number };

/** Parses "host:port", ":port" or "[v6]:port". Throws for anything else. */
export function parseAddr(addr: string): { host: string | undefined; port: number } {
  const colon = addr.lastIndexOf(":");
  const rawHost = addr.slice(0, colon);
  // RFC 3986 §3.2.2: an IPv6 literal in an authority is bracketed; "::1:80" is ambiguous.
  if (rawHost.includes(":") && !/^\[[^\]]*\]$/.test(rawHost)) {
    throw new HTTPError("ERR_HTTP_INVALID_OPTIONS", `options: Addr ${JSON.stringify(addr)} needs brackets around an IPv6 host`);
  }
  const host = rawHost.replace(/^\[(.*)\]$/, "$1");
  const port = Number(addr.slice(colon + 1));
  if (colon < 0 || !Number.isInteger(port) || port < 0 || port > 65535 || addr.slice(colon + 1) === "") {
    throw new HTTPError("ERR_HTTP_INVALID_OPTIONS", `options: Addr ${JSON.stringify(addr)} is not host:port`);
  }
  return { host: host === "" ? undefined : host, port };
}

/** Chooses the listener from the options and the environment. */
export function chooseListen(socket: string | undefined, addr: string | undefined, env: NodeJS.ProcessEnv): Listen {
  if (socket) return { socket };
  if (addr) return parseAddr(addr);
  const fds = Number(env["LISTEN_FDS"] ?? "0");
  const pid = env["LISTEN_PID"];
  if (fds >= 1 && (pid === undefined || Number(pid) === process.pid)) return { fd: SD_LISTEN_FDS_START };
  return parseAddr(DEFAULT_ADDR);
}

/** Removes a socket file left by a dead process; refuses a live socket or a non-socket file. */
async function removeStaleSocket(path: string): Promise<void> {
  let isSocket: boolean;
  try {
    isSocket = lstatSync(path).isSocket();
  } catch {
    return;
  }
  if (!isSocket) throw new HTTPError("ERR_HTTP_INVALID_OPTIONS", `listen: ${path} exists and is not a socket`);
  const live = await new Promise<boolean>((resolve) => {
    const probe = connect(path);
    probe.once("connect", () => {
      probe.destroy();
      resolve(true);
    });
    probe.once("error", () => resolve(false));
  });
  if (live) throw new HTTPError("ERR_HTTP_INVALID_OPTIONS", `listen: another process is serving on ${path}`);
  unlinkSync(path);
}

/** How to listen elsewhere, told with a listen error. */
const WAYS_OUT =
  "--addr HOST:PORT (or PORT=N in the environment of an application that reads it), or let systemd pass the socket (socket activation)";

/** Returns a listen error as one that names the address and the way out (EADDRINUSE, EACCES); any other error as it is. */

export function listenFailure(err: Error, where: Listen): Error {
  const code = (err as NodeJS.ErrnoException).code;
  const address = "socket" in where ? where.socket : "fd" in where ? `fd ${where.fd}` : `${where.host ?? ""}:${where.port}`;
  if (code === "EADDRINUSE") {
    const why = `${address} is already in use (EADDRINUSE): stop the other server, or choose another address with ${WAYS_OUT}`;
    return new HTTPError("ERR_HTTP_INVALID_OPTIONS", `listen: ${why}`, { cause: err });
  }
  if (code === "EACCES") {
    const privileged = "port" in where ? "ports below 1024 need privilege; choose a port of 1024 or more" : "choose another address";
    const why = `${address} is not allowed for this user (EACCES): ${privileged} with ${WAYS_OUT}`;
    return new HTTPError("ERR_HTTP_INVALID_OPTIONS", `listen: ${why}`, { cause: err });
  }
  return err;
}

/** Starts `server` listening; resolves with a description of the address. */
export async function listenOn(server: Server, where: Listen): Promise<string> {
  if ("socket" in where) await removeStaleSocket(where.socket);
  await new Promise<void>((resolve, reject) => {
    const fail = (err: Error): void => reject(listenFailure(err, where));
    server.once("error", fail);
    const done = (): void => {
      server.off("error", fail);
      resolve();
    };
    if ("socket" in where) server.listen(where.socket, done);
    else if ("fd" in where) server.listen({ fd: where.fd }, done);
    else server.listen(where.port, where.host, done);
  });
  const address = server.address();
  if (address === null) return "fd";
  return typeof address === "string" ? address : `${address.address}:${address.port}`;
}
