/*
 * The loopback redirect URI an MCP host listens on for the authorization response (RFC 8252 §7.3): a server on
 * 127.0.0.1 that answers the browser with a small page and hands the query to whoever waits for the next one.
 */
import { once } from "node:events";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

/** What the loopback redirect URI received: the authorization response's query. */
export interface Redirected {
  code: string | null;
  state: string | null;
  iss: string | null;
  error: string | null;
}

/** A listening redirect URI: `uri` to register, `next()` for the next response it receives. */
export interface RedirectListener {
  uri: string;
  next(): Promise<Redirected>;
  close(): Promise<void>;
}

/** Listens on 127.0.0.1 for the authorization response, answering the browser with a small page. */
export async function startRedirectListener(): Promise<RedirectListener> {
  const waiting: ((r: Redirected) => void)[] = [];
  const server = createServer((req, res) => {
    const query = new URL(req.url ?? "/", "http://127.0.0.1").searchParams;
    res.writeHead(200, { "content-type": "text/plain" }).end("You may close this window.");
    waiting.shift()?.({ code: query.get("code"), state: query.get("state"), iss: query.get("iss"), error: query.get("error") });
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address() as AddressInfo;
  return {
    uri: `http://127.0.0.1:${port}/callback`,
    next: () => new Promise((resolve) => waiting.push(resolve)),
    close: () => closeServer(server),
  };
}

/** Closes `server`, its open connections first. */
export async function closeServer(server: Server): Promise<void> {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
}
