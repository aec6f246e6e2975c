/*
 * Malformed JSON-RPC at the demo's /mcp: a fixed list of the shapes that
 * break parsers (wrong types in every field, huge and fractional ids,
 * batches, deep nesting, invalid UTF-8, bodies over the limit), then a
 * bounded run of seeded mutations of valid messages. Every answer is a
 * 4xx or a JSON-RPC answer, never a 500; the demo keeps serving and logs
 * no error.
 */
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { DEFAULT_BODY_LIMIT } from "../../lib/http/index.ts";
import { mintAgentToken, signInOverHTTP, startDemo, type Demo } from "../_support/demo.ts";
import { postMCP } from "../_support/mcp-client.ts";
import { randomTexts } from "../_support/random-text.ts";

const SEED = 0x14c0ffee;
const MUTATIONS = 300;

const VALID: readonly Record<string, unknown>[] = [
  {
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: { protocolVersion: "2025-11-25", capabilities: { elicitation: { url: {} } }, clientInfo: { name: "fuzz", version: "0" } },
  },
  { jsonrpc: "2.0", id: "a", method: "tools/list", params: {} },
  { jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "job_status", arguments: { id: "x" } } },
  { jsonrpc: "2.0", id: 3, method: "tools/call", params: { name: "start_job", arguments: { kind: "ok" } } },
  { jsonrpc: "2.0", method: "notifications/initialized" },
  { jsonrpc: "2.0", id: 4, result: {} },
];

const deep = (depth: number, open: string, close: string, core = "1"): string => open.repeat(depth) + core + close.repeat(depth);

// Shapes named by the issue and by JSON-RPC 2.0 §4-§6, as raw bodies.
const FIXED: readonly (string | Buffer)[] = [
  "",
  " ",
  "null",
  "true",
  "1",
  '"ping"',
  "{}",
  "[]",
  "[1]",
  "{",
  "}",
  '{"jsonrpc":"2.0",',
  "NaN",
  '{"jsonrpc":"2.0","id":1,"method":"ping",}',
  JSON.stringify([{ jsonrpc: "2.0", id: 1, method: "ping" }]),
  JSON.stringify(Array.from({ length: 1000 }, (_, i) => ({ jsonrpc: "2.0", id: i, method: "ping" }))),
  JSON.stringify({ jsonrpc: "1.0", id: 1, method: "ping" }),
  JSON.stringify({ jsonrpc: 2, id: 1, method: "ping" }),
  JSON.stringify({ id: 1, method: "ping" }),
  ...[null, {}, [], true, 1.5, -0.5, 2 ** 53, -(2 ** 53), "x".repeat(60_000)].map((id) =>
    JSON.stringify({ jsonrpc: "2.0", id, method: "ping" }),
  ),
  '{"jsonrpc":"2.0","id":1e400,"method":"ping"}',
  '{"jsonrpc":"2.0","id":123456789012345678901234567890123456789,"method":"ping"}',
  '{"jsonrpc":"2.0","id":-1e-400,"method":"ping"}',
  ...[5, null, "", [], {}, true].map((method) => JSON.stringify({ jsonrpc: "2.0", id: 1, method })),
  ...[[], "x", null, 7].map((params) => JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params })),
  ...[5, {}, null, "", "x".repeat(10_000), "__proto__"].map((name) =>
    JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name, arguments: {} } }),
  ),
  ...[[], "x", null, 7, { id: [] }, { id: null }, { id: 1e308 }, { id: "x", extra: 1 }].map((args) =>
    JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "job_status", arguments: args } }),
  ),
  '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"job_status","arguments":{"__proto__":{"id":"x"}}}}',
  '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"job_status","arguments":{"id":"a","id":"b"}}}',
  '{"jsonrpc":"2.0","id":1,"method":"\\ud800"}',
  ...[[], "x", null, 7, { elicitation: null }, { elicitation: { url: null } }].map((capabilities) =>
    JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-11-25", capabilities } }),
  ),
  ...[[], null, 20251125, ""].map((protocolVersion) =>
    JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion } }),
  ),
  JSON.stringify({ jsonrpc: "2.0", id: 1, result: null, error: null }),
  JSON.stringify({ jsonrpc: "2.0", error: { code: 1 } }),
  deep(100_000, "[", "]"),
  deep(20_000, '{"a":', "}"),
  `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"job_status","arguments":${deep(10_000, '{"a":', "}")}}}`,
  `{"jsonrpc":"2.0","id":1,"method":"ping","params":${deep(10_000, '{"p":[', "]}", "{}")}}`,
  Buffer.from([0xff, 0xfe, 0xfd]),
  Buffer.concat([Buffer.from('{"jsonrpc":"2.0","id":"'), Buffer.from([0xc0, 0xaf]), Buffer.from('","method":"ping"}')]),
  Buffer.concat([Buffer.from('{"jsonrpc":"2.0","id":"'), Buffer.from([0xed, 0xa0, 0x80]), Buffer.from('","method":"ping"}')]),
  Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('{"jsonrpc":"2.0","id":1,"method":"ping"}')]),
  Buffer.from('{"jsonrpc":"2.0","id":1,"method":"ping"}\u0000'),
  JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping", params: { pad: "x".repeat(DEFAULT_BODY_LIMIT) } }),
];

function xorshift(seed: number): () => number {
  let x = seed >>> 0 || 1;
  return () => {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>>= 0);
  };
}

// A seeded mutation of a valid message: a field replaced by a value of another type, or the bytes cut or flipped.
function mutations(seed: number, count: number): Buffer[] {
  const next = xorshift(seed);
  const text = randomTexts(seed);
  const values: (() => unknown)[] = [
    () => null,
    () => true,
    () => next() - 2 ** 31,
    () => next() * 2 ** 40 + 0.5,
    () => 1e308,
    () => text(40),
    () => [],
    () => ({}),
    () => [text(5), next()],
    () => ({ [text(8)]: text(8) }),
    () => JSON.parse(deep(next() % 500, "[", "]")),
  ];
  const out: Buffer[] = [];
  for (let i = 0; i < count; i++) {
    const message = structuredClone(VALID[next() % VALID.length] ?? {});
    const mode = next() % 4;
    if (mode <= 1) {
      // Replace (or add) a top-level or params-level field.
      const target = mode === 0 || typeof message["params"] !== "object" ? message : (message["params"] as Record<string, unknown>);
      const keys = [...Object.keys(target), "id", "arguments", "name", text(6)];
      target[keys[next() % keys.length] ?? "id"] = values[next() % values.length]?.();
      out.push(Buffer.from(JSON.stringify(message)));
      continue;
    }
    const bytes = Buffer.from(JSON.stringify(message));
    if (mode === 2) out.push(bytes.subarray(0, next() % bytes.length));
    else {
      bytes[next() % bytes.length] = next() % 256;
      out.push(bytes);
    }
  }
  return out;
}

describe("MCP endpoint under malformed JSON-RPC", () => {
  let demo: Demo;
  let token: string;
  before(async () => {
    demo = await startDemo();
    const jar = await signInOverHTTP(demo, "fuzz@example.com");
    token = await mintAgentToken(demo, jar, "fuzz", "read");
  });
  after(async () => demo?.close());

  async function assertAnswered(body: string | Buffer, label: string): Promise<number> {
    const res = await postMCP(demo, token, body);
    assert.ok(res.status < 500, `${label}: ${res.status} ${res.body.slice(0, 200)}`);
    if (res.status === 202) assert.equal(res.body, "", label);
    else assert.equal(JSON.parse(res.body).jsonrpc, "2.0", `${label}: a JSON-RPC body`);
    return res.status;
  }

  it("answers every listed malformed body with 400, 413 or a JSON-RPC answer, never 500", async () => {
    const statuses = new Map<number, number>();
    for (const [i, body] of FIXED.entries()) {
      const status = await assertAnswered(body, `fixed #${i}`);
      statuses.set(status, (statuses.get(status) ?? 0) + 1);
    }
    assert.deepEqual([...statuses.keys()].sort(), [200, 202, 400, 413]);
    const batch = await postMCP(demo, token, [{ jsonrpc: "2.0", id: 1, method: "ping" }]);
    assert.deepEqual([batch.status, JSON.parse(batch.body).error.code], [400, -32600], "batches are refused");
    const utf8 = await postMCP(demo, token, Buffer.from([0xff, 0xfe, 0xfd]));
    assert.deepEqual([utf8.status, JSON.parse(utf8.body).error.code], [400, -32700], "invalid UTF-8 is a parse error");
    const huge = await postMCP(demo, token, "x".repeat(64 * 1024 + 1));
    assert.equal(huge.status, 413, "the body limit is 64 KiB");
    const fits = await postMCP(demo, token, JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" }).padEnd(64 * 1024, " "));
    assert.equal(fits.status, 200, "a body of exactly the limit is read");
    const plain = await postMCP(demo, token, "{}", { "Content-Type": "text/plain" });
    assert.equal(plain.status, 415);
  });

  it(`answers ${MUTATIONS} seeded mutations of valid messages without a 500, and keeps serving`, async () => {
    for (const [i, body] of mutations(SEED, MUTATIONS).entries()) await assertAnswered(body, `mutation #${i} (seed ${SEED})`);
    const ping = await postMCP(demo, token, { jsonrpc: "2.0", id: "alive", method: "ping" });
    assert.deepEqual(JSON.parse(ping.body), { jsonrpc: "2.0", id: "alive", result: {} });
    assert.deepEqual(demo.errorLogs(), []);
  });
});
