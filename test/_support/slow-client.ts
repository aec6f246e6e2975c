/*
 * A slow-header client over node:net, from a chosen loopback address
 * (127.0.0.0/8 is all loopback on Linux, so `127.0.x.1` stands for a
 * distinct client). It first completes one keep-alive request, so the
 * server has provably accepted and counted the connection, then sends the
 * start of a second request head and never finishes it.
 */
import { connect, type Socket } from "node:net";

/** One held connection. */
export interface SlowClient {
  socket: Socket;
  /** The status of the first response. */
  status: number;
  /** Everything the server wrote after the first response. */
  after(): string;
  /** Resolves when the server closed the connection. */
  closed: Promise<void>;
}

/** Opens a slow-header connection to 127.0.0.1:`port` from `localAddress`. */
export function holdSlowHeaders(port: number, localAddress: string, path: string = "/healthz"): Promise<SlowClient> {
  return new Promise((resolve, reject) => {
    const socket = connect({ port, host: "127.0.0.1", localAddress });
    let text = "";
    let first = true;
    const closed = new Promise<void>((done) => socket.once("close", () => done()));
    socket.setEncoding("latin1");
    socket.on("error", (err) => (first ? reject(err) : undefined));
    socket.once("close", () => (first ? reject(new Error(`closed before the first response: ${JSON.stringify(text)}`)) : undefined));
    socket.on("data", (chunk: string) => {
      text += chunk;
      if (!first) return;
      const end = text.indexOf("\r\n\r\n");
      const length = /content-length: (\d+)/i.exec(text);
      if (end < 0 || length?.[1] === undefined || text.length < end + 4 + Number(length[1])) return;
      first = false;
      const status = Number(text.slice(9, 12));
      text = "";
      socket.write("GET /never-finished HTTP/1.1\r\nHost: localhost\r\n");
      resolve({ socket, status, after: () => text, closed });
    });
    socket.once("connect", () => socket.write(`GET ${path} HTTP/1.1\r\nHost: localhost\r\nConnection: keep-alive\r\n\r\n`));
  });
}
