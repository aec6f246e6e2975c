/*
 * A real request, as a handler sees it: one HTTP request sent from
 * `localAddress` to a server listening on `listenHost` (both loopback
 * unless said), captured in that server's handler and held open until the
 * test ends. For code that reads where a request came from and arrived
 * (its socket's addresses) without a server of its own around it.
 */
import { createServer, request, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import type { TestContext } from "node:test";

/** Sends one request from `localAddress` to `connectTo` (a server on `listenHost`, port 0) and resolves with it as the server received it. */
export async function arrivedRequest(
  t: TestContext,
  localAddress: string = "127.0.0.1",
  listenHost: string = "127.0.0.1",
  connectTo: string = listenHost,
): Promise<IncomingMessage> {
  const server = createServer();
  const received = new Promise<IncomingMessage>((resolve) => server.once("request", (req: IncomingMessage) => resolve(req)));
  await new Promise<void>((resolve) => server.listen(0, listenHost, resolve));
  t.after(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  const sent = request({ host: connectTo, port: (server.address() as AddressInfo).port, localAddress, path: "/" });
  sent.on("error", () => {});
  sent.end();
  return received;
}
