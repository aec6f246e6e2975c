/*
 * A worker thread for the event store's concurrency test: it opens its own
 * connection to the database file, waits at a shared barrier so every
 * worker appends at the same moment, appends with the expected sequence it
 * was given, and reports "ok" or the error code.
 */
import { parentPort, workerData } from "node:worker_threads";
import { OpenDB } from "../../lib/db/index.ts";
import { EventStore } from "../../lib/events/index.ts";
import { agentActor } from "../../lib/agent/actor.ts";

interface Input {
  path: string;
  stream: string;
  expected: number;
  name: string;
  barrier: SharedArrayBuffer;
}

const input = workerData as Input;
const db = OpenDB(input.path);
const events = new EventStore(db);
const gate = new Int32Array(input.barrier);
Atomics.add(gate, 1, 1);
Atomics.wait(gate, 0, 0);
let outcome: string;
try {
  events.append({
    Stream: input.stream,
    Expected: input.expected,
    Type: "race.won",
    Data: { by: input.name },
    Actor: agentActor(input.name),
    Subject: "race@example.com",
  });
  outcome = "ok";
} catch (err) {
  outcome = err instanceof Error && "code" in err ? String(err.code) : String(err);
}
db.close();
parentPort?.postMessage(outcome);
