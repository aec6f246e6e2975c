/*
 * The write paths of the demo's operator routes (scripts/write-paths.ts
 * describes the table; latch/operators README, "Actions"): each driven as
 * `OPERATOR`, the demo's configured operator, from a session a passkey
 * confirmed, on `OPERATED`, never on the person the other drives act as.
 * Each appends its event on both audit streams, actor human. The demo
 * mounts the starter's operator pages at `/operators`: the table finds
 * their routes there (`STARTER_MOUNTED_AT`).
 */
import type { Driver, WritePath } from "./write-paths.ts";

/** The demo's operator (its `OPERATORS`) the operator routes are driven as. */
export const OPERATOR = "op-writes@example.com";

// The person the operator acts on.
const OPERATED = "someone-writes@example.com";

const OPERATORS_ATOMIC = "test/e2e/operators.test.ts";

/** The starter's modules the demo mounts under a path of its choosing (`${path}` in their patterns), and that path. */
export const STARTER_MOUNTED_AT: Readonly<Record<string, string>> = { "examples/starter/operators.ts": "/operators" };

/** The operator routes' rows, suspension first (reactivation needs one). */
export function operatorWritePaths(): WritePath[] {
  const actions = [
    ["suspend", "operator.suspended", { reason: "write paths" }],
    ["reactivate", "operator.reactivated", { reason: "write paths" }],
    ["end-access", "operator.access_ended", {}],
    ["reset-passkeys", "operator.passkeys_reset", {}],
  ] as const;
  return [
    ...actions.map(([action, type, form]) => ({
      name: `POST /operators/${action}`,
      drive: (d: Driver) => d.operate(`/operators/${action}`, { address: OPERATED, ...form }),
      event: { type, actor: "human" as const },
      atomic: OPERATORS_ATOMIC,
    })),
    {
      name: "session: Sessions.RevokeEveryone",
      none: "latch/operators' EndEveryone, driven by the route below (not here): operator.everyone_ended (human) on the operator's stream in the same transaction",
      atomic: OPERATORS_ATOMIC,
    },
    {
      name: "POST /operators/end-everyone",
      none: "ends every session and token, this driver's too: operator.everyone_ended (human) on the operator's stream, in the same transaction; test/e2e/operators.test.ts drives it",
      atomic: OPERATORS_ATOMIC,
    },
  ];
}
