/*
 * Listener selection (SPEC §4.4 `Serve`): a unix socket when `Socket` is
 * set, a TCP address when `Addr` is set, otherwise the systemd-activated
 * listener when the process was socket-activated (sd_listen_fds(3):
 * LISTEN_FDS >= 1 and LISTEN_PID absent or equal to our pid; the first
 * passed descriptor is fd 3), otherwise ":8080".
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

/** Starts `server` listening; resolves with a description of the address. */
export async function listenOn(server: Server, where: Listen): Promise<string> {
  if ("socket" in where) await removeStaleSocket(where.socket);
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    const done = (): void => {
      server.off("error", reject);
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
