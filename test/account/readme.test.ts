/*
 * lib/account/README.md's example mounts what an application needs, as the
 * starter's `mountAccountPages` (examples/starter/account.ts, which the
 * guide's step 9 and the demo run) mounts it: every route of latch/account
 * and its two pages, each behind the same gate (`mux`: none, `signedIn`:
 * RequireSession, `fresh`: RequireFreshSession). The sessions' routes the
 * starter adds are latch/signin's, not this README's.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { codeBlocks, readRepoFile } from "../_support/docs.ts";
import { ACCOUNT_PATHS } from "../../examples/starter/account.ts";

/** `<group> <METHOD> <path>` for each `group.Handle("METHOD path", …)` of `code`, `${ACCOUNT_PATHS.X}` read as its value. */
function mounts(code: string): string[] {
  const paths: Readonly<Record<string, string>> = ACCOUNT_PATHS;
  return [...code.matchAll(/(\w+)\.Handle\(["`](\w+) ([^"`]+)["`]/g)]
    .map(
      ([, group, method, path]) =>
        `${group} ${method} ${(path ?? "").replace(/\$\{ACCOUNT_PATHS\.(\w+)\}/, (_, name: string) => paths[name] ?? name)}`,
    )
    .sort();
}

test("the README's example mounts every route and page of the starter's account, each behind the same gate", () => {
  const example = codeBlocks(readRepoFile("lib/account/README.md")).find((block) => block.code.includes("account.create("));
  const starter = mounts(readRepoFile("examples/starter/account.ts")).filter((route) => !route.includes("/account/sessions/"));
  assert.ok(starter.length >= 8, starter.join("\n"));
  assert.deepEqual(mounts(example?.code ?? ""), starter);
});
