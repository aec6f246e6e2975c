/*
 * The `requestState` of a 2026-07-28 `input_required` answer to a write call awaiting approval (README, "MCP
 * 2026-07-28"): which approval it waits for, for which token, tool and arguments, until when; sealed under a key derived
 * from the application's `InstanceKey`, so the client carries it and the server keeps nothing. It approves nothing: the
 * retry runs through ToolInvoker like the identical repeated call, and only the person's decision on the approval page
 * lets it run.
 */
import { createHash } from "node:crypto";
import { APPROVAL_TTL } from "../agent/index.ts";
import { deriveKey, openBlob, ownField, sealBlob } from "../internal/index.ts";
import { isObject } from "./jsonrpc.ts";

/** HKDF label of the `requestState` key; changing it voids every state in flight. */
export const REQUEST_STATE_LABEL = "latch mcp request state v1";

/**
 * How long a `requestState` is accepted: twice `APPROVAL_TTL`, as a pending approval lives `APPROVAL_TTL` and, once
 * approved, may be spent for `APPROVAL_TTL` more. Past it the retry is refused and the client calls afresh.
 */
export const REQUEST_STATE_TTL: number = 2 * APPROVAL_TTL;

/** What a `requestState` binds: the approval, and the call it was issued for. */
export interface StateBinding {
  readonly Approval: string;
  readonly TokenID: string;
  readonly Tool: string;
  /** `argumentsDigest` of the call's arguments. */
  readonly Args: string;
}

/**
 * Returns the SHA-256 (base64url) of `args` as JSON with its keys in code-unit order, or `undefined` when `args` is not
 * an object of JSON scalars: no tool's arguments are anything else, so such a call never held a state, and a nested value
 * an attacker sent is never walked.
 */
export function argumentsDigest(args: unknown): string | undefined {
  if (!isObject(args)) return undefined;
  const entries = Object.keys(args)
    .sort()
    .map((key) => [key, ownField(args, key)] as const);
  if (entries.some(([, value]) => value !== null && typeof value === "object")) return undefined;
  return createHash("sha256").update(JSON.stringify(entries)).digest("base64url");
}

/** Seals and opens the `requestState` of one endpoint. */
export class RequestStates {
  readonly #key: Buffer;

  /** Throws `TypeError` when `instanceKey` is empty. */
  constructor(instanceKey: string) {
    this.#key = deriveKey(instanceKey, REQUEST_STATE_LABEL);
  }

  /** Returns the `requestState` of `binding`, accepted until `now` plus `REQUEST_STATE_TTL`. */
  seal(binding: StateBinding, now: Date): string {
    const data = { a: binding.Approval, t: binding.TokenID, n: binding.Tool, h: binding.Args };
    return sealBlob(this.#key, data, new Date(now.getTime() + REQUEST_STATE_TTL));
  }

  /**
   * Reports whether `state` is one this endpoint sealed for the retried call `call` (its token, tool and arguments), not
   * yet expired at `now`. MCP 2026-07-28 basic/patterns/mrtr §Server Requirements: `requestState` is attacker-controlled,
   * checked for integrity and bound to the principal, a short expiry and the originating request.
   */
  verify(state: string, call: Omit<StateBinding, "Approval">, now: Date): boolean {
    const opened = openBlob(this.#key, state, now);
    if (!opened.ok) return false;
    const data = opened.data;
    return (
      isObject(data) &&
      typeof ownField(data, "a") === "string" &&
      ownField(data, "t") === call.TokenID &&
      ownField(data, "n") === call.Tool &&
      ownField(data, "h") === call.Args
    );
  }
}
