/*
 * The locale switch's path is a contract value (SPEC §2.4 `LocaleSwitchPath`): pinned here from the spec's own
 * text, answered by the runtime there, and spelled in lib/ only by lib/i18n's constant, the one home the
 * runtime mounts (a second copy could drift from it unnoticed).
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { LocaleCookie, LocaleSwitchPath } from "../../lib/i18n/index.ts";
import { listFiles, readRepoFile } from "../_support/docs.ts";
import { fetchHTTP, startHandler } from "../_support/http.ts";

test("LocaleSwitchPath and LocaleCookie are the values docs/spec.md §2.4 gives", () => {
  const spec = readRepoFile("docs/spec.md").replace(/\s+/g, " ");
  assert.equal(/`LocaleSwitchPath` = `"([^"]*)"`/.exec(spec)?.[1], "/_locale");
  assert.equal(/`LocaleCookie` = `"([^"]*)"`/.exec(spec)?.[1], "framework_locale");
  assert.equal(LocaleSwitchPath, "/_locale");
  assert.equal(LocaleCookie, "framework_locale");
});

test("the runtime answers the switch at LocaleSwitchPath: a same-origin POST sets the locale cookie", async (t) => {
  const { port } = await startHandler(t, { Mux: (_req, res) => void res.writeHead(404).end(), Locales: ["en", "fr"] });
  const body = "locale=fr&next=%2F";
  const reply = await fetchHTTP(port, LocaleSwitchPath, {
    method: "POST",
    headers: { "Content-Type": "application/x-www-form-urlencoded", "Sec-Fetch-Site": "same-origin" },
    body,
  });
  assert.equal(reply.status, 303);
  assert.deepEqual(reply.headers["set-cookie"], [`${LocaleCookie}=fr; Max-Age=31536000; Path=/; SameSite=Lax`]);
});

test("no file in lib/ but lib/i18n/types.ts spells the switch's path as a string: the runtime mounts LocaleSwitchPath", () => {
  const literal = /["'`]\/_locale["'`?]/;
  const spelled = listFiles("lib", [".ts"]).filter((file) =>
    readRepoFile(file)
      .split("\n")
      .some((line) => !/^\s*(\/\/|\*|\/\*)/.test(line) && literal.test(line)),
  );
  assert.deepEqual(spelled, ["lib/i18n/types.ts"]);
});
