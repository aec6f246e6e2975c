/* The worker half of `SignatureVerifier`: `{ id, key, data, signature }` in, `{ id, ok }` out. */
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
