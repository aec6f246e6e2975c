/*
 * A server for the passkey-burst scenario: `Handler` with `GET /healthz`
 * (the chrome) and `POST /verify`, which parses the W3C ES256 assertion
 * (w3c/none-es256) and verifies it with `verifyAuthenticationWith`, as the
 * passkey component's sign-in does. "pool": the default SignatureVerifier
 * (10 checks a second in-thread, the rest on worker threads); "inthread":
 * `workers: 0`, every check on the event loop (before).
 *
 * Usage: node dist/scripts/bench-servers/passkey-burst.js pool|inthread
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { discardLogger } from "../../lib/http/index.ts";
import { Handler } from "../../lib/index.ts";
import { parseAuthenticationResponse, SignatureVerifier, verifyAuthenticationWith } from "../../lib/webauthn/index.ts";
import { authenticationCase, loadVectorFile } from "../../test/_support/passkey-vectors.ts";
import { announce } from "./routes.ts";

const v = loadVectorFile("w3c-webauthn-l3.json").vectors.find((x) => x.name === "w3c/none-es256/authentication");
if (v === undefined) throw new Error("passkey-burst: vector missing");
const { json, expect } = authenticationCase(v, "bench");
const verifier = new SignatureVerifier(process.argv[2] === "inthread" ? { workers: 0 } : {});

const [handler] = Handler({
  Logger: discardLogger,
  Mux: async (req, res) => {
    if (req.method !== "POST" || req.url !== "/verify") return void res.writeHead(404).end();
    req.resume();
    const result = await verifyAuthenticationWith(verifier, parseAuthenticationResponse(json), expect);
    res.end(String(result.newSignCount));
  },
});
const server = createServer(handler);
server.keepAliveTimeout = 60_000;
server.listen(0, "127.0.0.1", () => announce((server.address() as AddressInfo).port));
