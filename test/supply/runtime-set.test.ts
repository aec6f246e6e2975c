/*
 * What runs, checked (docs/supply-chain.md): the demo is started with a
 * module-load recorder (test/_support/load-recorder.ts) and walked through
 * a sign-in by emailed link, a passkey ceremony (registration, then a
 * passkey sign-in, with the software authenticator) and a resource write;
 * the packages it loaded from node_modules must be exactly the document's
 * run-time rows (the optional ones only where cbor-extract, the one
 * optional dependency, is installed: without it cbor-x loads none of them).
 */
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { registerHooks } from "../_support/load-recorder.ts";
import { newAuthenticator } from "../_support/authenticator.ts";
import { isSigninMail, signInOverHTTP, startDemo, type Demo } from "../_support/demo.ts";
import { CookieJar, sendRequest, type TestResponse } from "../_support/http-client.ts";
import { ROOT, packagesIn, supplyRows } from "./supply-doc.ts";

const ADDRESS = "ada@example.com";
const RECORDER = fileURLToPath(new URL("../_support/load-recorder.js", import.meta.url));

/** Whether a package is installed, at the top of node_modules or under a package that needs another version. */
const installed = (name: string): boolean =>
  existsSync(join(ROOT, "node_modules", name, "package.json")) ||
  readdirSync(join(ROOT, "node_modules")).some((dir) => existsSync(join(ROOT, "node_modules", dir, "node_modules", name, "package.json")));

const postJSON = (demo: Demo, jar: CookieJar, path: string, body: unknown): Promise<TestResponse> =>
  sendRequest(
    demo.origin,
    "POST",
    path,
    { jar, headers: { "Content-Type": "application/json", Accept: "application/json" }, body: JSON.stringify(body) },
    demo.origin,
  );

const noHooks = registerHooks === undefined ? "needs module.registerHooks (Node 22.15 and later) to see every require()" : false;

describe("the packages the demo loads", { skip: noHooks }, () => {
  const scratch = mkdtempSync(join(tmpdir(), "latch-loads-"));
  const log = join(scratch, "loaded.txt");
  let demo: Demo;
  before(async () => {
    demo = await startDemo({ LATCH_LOAD_LOG: log, NODE_OPTIONS: `--import ${pathToFileURL(RECORDER).href}` });
  });
  after(async () => {
    await demo?.close();
    rmSync(scratch, { recursive: true, force: true });
  });

  it("signs in by link, registers a passkey, signs in with it, and writes a resource", async () => {
    const jar = await signInOverHTTP(demo, ADDRESS);
    const key = newAuthenticator({ origin: demo.origin });
    const begin = await postJSON(demo, jar, "/passkey/register/begin", {});
    assert.equal(begin.status, 200);
    const finish = await postJSON(demo, jar, "/passkey/register/finish", key.register(JSON.parse(begin.body)));
    assert.equal(finish.status, 200, finish.body);

    // The account now has a passkey: the link leads to /confirm, the passkey finishes the sign-in.
    const second = new CookieJar();
    const before = demo.smtp.messages.length;
    await sendRequest(demo.origin, "POST", "/signin", { jar: second, form: { email: ADDRESS } }, demo.origin);
    const mail = await demo.smtp.waitForMessage((m) => demo.smtp.messages.indexOf(m) >= before && isSigninMail(m));
    const link = /\/auth\/verify\?token=[A-Za-z0-9_-]+/.exec(mail.parsed.text ?? "")?.[0] ?? "";
    assert.equal((await sendRequest(demo.origin, "GET", link, { jar: second }, demo.origin)).location, "/confirm");
    const options = await postJSON(demo, second, "/passkey/signin/begin", {});
    assert.equal(options.status, 200);
    const signedIn = await postJSON(demo, second, "/passkey/signin/finish", key.assert(JSON.parse(options.body)));
    assert.equal(signedIn.status, 200, signedIn.body);

    const written = await sendRequest(
      demo.origin,
      "POST",
      "/expenses",
      { jar: second, form: { label: "Train", amount: "12.50" } },
      demo.origin,
    );
    assert.equal(written.status, 303, written.body);
  });

  it("loaded exactly the document's run-time packages", async () => {
    await demo.close();
    const loaded = packagesIn(readFileSync(log, "utf8").split("\n"));
    const documented = supplyRows()
      .filter((row) => row.when.includes("run time"))
      .filter((row) => !row.when.startsWith("optional") || (installed("cbor-extract") && installed(row.name)))
      .map((row) => row.name)
      .sort();
    assert.deepEqual(loaded, documented);
  });
});
