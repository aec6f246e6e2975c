/*
 * An operator's export of a person's audit stream (README "Reading a person's audit stream"): the stream as JSON Lines,
 * one event a line in lib/events' chain form (`EventStore.chainLines`: the columns as stored, both links in hex), so an
 * outside tool recomputes each hash and checks the links against the head the page showed. Read `MAX_READ` events at a
 * time and written with the download's backpressure and deadline (lib/internal), never whole in memory.
 */
import type { ServerResponse } from "node:http";
import type { EventStore } from "../events/index.ts";
import { endChunks, writeChunk } from "../internal/index.ts";

/** Writes every event of `stream` to `res` (status and headers already set), one JSON line each, and ends it. */
export async function writeAuditLines(res: ServerResponse, events: EventStore, stream: string): Promise<void> {
  for (let from = 1; ;) {
    const lines = events.chainLines(stream, from);
    if (lines.length === 0) return endChunks(res, "");
    if (!(await writeChunk(res, lines.join("\n") + "\n"))) return;
    from += lines.length;
  }
}
