// The outbound connections requests make the process open (lib/runtime/README.md, "Connections"): bounded in the process and per client, refused past either, never queued.
/** Outbound connections open at once for requests, in the whole process: 32 of the runtime's 128 reserved files. */
export const OUTBOUND_FILES: number = 32;

let total = 0;
const perClient = new Map<string, number>();

/**
 * Takes one outbound connection for `client` (a `clientKey`, undefined when
 * unknown: counted in the total only), allowed `maxPerClient` at once.
 * Returns the function that gives it back (call it once the connection is
 * closed or the fetch has failed), or which bound refused it.
 */
export function takeOutbound(client: string | undefined, maxPerClient: number): (() => void) | "client" | "total" {
  const mine = client === undefined ? 0 : (perClient.get(client) ?? 0);
  if (client !== undefined && mine >= maxPerClient) return "client";
  if (total >= OUTBOUND_FILES) return "total";
  total++;
  if (client !== undefined) perClient.set(client, mine + 1);
  let given = false;
  return () => {
    if (given) return;
    given = true;
    total--;
    if (client === undefined) return;
    const left = (perClient.get(client) ?? 1) - 1;
    if (left === 0) perClient.delete(client);
    else perClient.set(client, left);
  };
}
