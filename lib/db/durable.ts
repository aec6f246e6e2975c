/*
 * The durability barrier: after a commit that must survive the loss of the
 * machine, wait until Litestream (v0.5.9, control socket enabled) has
 * replicated it, or fail the request. `POST /sync` `{"path", "wait": true,
 * "timeout"}` answers 200 with `{"status": "synced" | "no_change", "txid",
 * "replicated_txid"}`, else `{"error", "details"?}`
 * (litestream.io/reference/sync, cmd/litestream/sync.go). Bound to the
 * handle, so a commit's `awaitDurable(db)` resolves at once when unset.
 */
import { request } from "node:http";
import type { DB } from "./handle.ts";
import { DBError } from "./errors.ts";

/** Litestream's default control socket. */
export const LITESTREAM_SOCKET: string = "/var/run/litestream.sock";

/** Milliseconds a barrier waits for Litestream before the request fails with 503. */
export const DEFAULT_DURABLE_TIMEOUT: number = 10_000;

/** Where the barrier asks Litestream. */
export interface DurableOptions {
  /** Litestream's control socket. @default LITESTREAM_SOCKET */
  socket?: string;
  /** The database path as Litestream's configuration names it (absolute). */
  path: string;
  /** Milliseconds to wait for replication. @default DEFAULT_DURABLE_TIMEOUT */
  timeout?: number;
}

/** What Litestream answered. */
export interface SyncAnswer {
  status: string;
  txid: number | undefined;
  replicatedTXID: number | undefined;
}

const barriers = new WeakMap<DB, DurableOptions>();

/** Binds (or, with undefined, removes) the barrier of `db`; the runtime calls it for `Options.Durable`. */
export function setDurable(db: DB, options: DurableOptions | undefined): void {
  if (options === undefined) barriers.delete(db);
  else barriers.set(db, options);
}

/** Resolves once what `db` committed is replicated (at once without a barrier); rejects with `DBError` ERR_DB_NOT_DURABLE (503) otherwise. */
export async function awaitDurable(db: DB): Promise<void> {
  const options = barriers.get(db);
  if (options !== undefined) await syncLitestream(options);
}

/** Asks Litestream to sync `options.path` and wait for replication; the same rejections as `awaitDurable`. */
export async function syncLitestream(options: DurableOptions): Promise<SyncAnswer> {
  const timeout = options.timeout ?? DEFAULT_DURABLE_TIMEOUT;
  // Litestream takes whole seconds and treats its timeout as best effort; ours is the hard bound.
  const body = JSON.stringify({ path: options.path, wait: true, timeout: Math.max(1, Math.ceil(timeout / 1000)) });
  const { status, text } = await post(options.socket ?? LITESTREAM_SOCKET, "/sync", body, timeout);
  const answer = parseAnswer(text);
  if (status !== 200) throw notDurable(`litestream answered ${status}: ${errorText(text)}`);
  if (answer === undefined) throw notDurable("litestream answered 200 without a sync status");
  if (answer.status !== "synced" && answer.status !== "no_change")
    throw notDurable(`litestream sync status ${JSON.stringify(answer.status)}`);
  if (answer.txid !== undefined && answer.replicatedTXID !== undefined && answer.replicatedTXID < answer.txid)
    throw notDurable(`litestream replicated txid ${answer.replicatedTXID} behind local txid ${answer.txid}`);

  return answer;
}

function post(socketPath: string, path: string, body: string, timeout: number): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      { socketPath, path, method: "POST", headers: { "Content-Type": "application/json", "Content-Length": Buffer.byteLength(body) } },
      (res) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (chunk: string) => {
          // A control answer is a few hundred bytes; more is not Litestream.
          if ((text += chunk).length > 65_536) req.destroy(notDurable("litestream answer too long"));
        });
        res.on("end", () => resolve({ status: res.statusCode ?? 0, text }));
        res.on("error", (err) => reject(notDurable(`litestream answer cut: ${err.message}`)));
      },
    );
    req.setTimeout(timeout, () => req.destroy(notDurable(`litestream did not confirm within ${timeout} ms`)));
    req.on("error", (err) => reject(err instanceof DBError ? err : notDurable(`litestream unreachable at ${socketPath}: ${err.message}`)));
    req.end(body);
  });
}

function parseAnswer(text: string): SyncAnswer | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof parsed !== "object" || parsed === null || !("status" in parsed) || typeof parsed.status !== "string") return undefined;
  const txid = "txid" in parsed && typeof parsed.txid === "number" ? parsed.txid : undefined;
  const replicated = "replicated_txid" in parsed && typeof parsed.replicated_txid === "number" ? parsed.replicated_txid : undefined;
  return { status: parsed.status, txid, replicatedTXID: replicated };
}

function errorText(text: string): string {
  try {
    const parsed: unknown = JSON.parse(text);
    if (typeof parsed === "object" && parsed !== null && "error" in parsed && typeof parsed.error === "string")
      return parsed.error.slice(0, 200);
  } catch {
    // not JSON: fall through to the raw text
  }
  return text.slice(0, 200);
}

function notDurable(reason: string): DBError {
  return new DBError("ERR_DB_NOT_DURABLE", `durable: ${reason}`, { status: 503 });
}
