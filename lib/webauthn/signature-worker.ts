/*
 * The worker half of `SignatureVerifier`: the same `verifySignature`
 * (@noble/curves) the event loop runs, on a worker thread. Each message is
 * `{ id, key, data, signature }`; the answer is `{ id, ok }`.
 */
import { parentPort } from "node:worker_threads";
import type { COSEPublicKey } from "./cose.ts";
import { verifySignature } from "./signature.ts";

interface Job {
  id: number;
  key: COSEPublicKey;
  data: Uint8Array;
  signature: Uint8Array;
}

parentPort?.on("message", (job: Job) => {
  parentPort?.postMessage({ id: job.id, ok: verifySignature(job.key, job.data, job.signature) });
});
