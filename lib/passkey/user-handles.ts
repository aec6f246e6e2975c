/*
 * WebAuthn user handles (L3 §5.4.3 `user.id`): one random 32-byte handle
 * per subject, created on first registration and reused after, so all of
 * a subject's credentials share it. It is random rather than derived from
 * the address because §14.6.1 asks that it carry no personal information.
 */
import type { DB } from "../db/index.ts";
import { cryptoRandom, type RandomReader } from "../http/index.ts";

/** The user-handle table's accessor. */
export class UserHandles {
  readonly #get;
  readonly #insert;
  readonly #random: RandomReader;

  constructor(db: DB, random: RandomReader = cryptoRandom) {
    this.#get = db.prepare<[string], { user_handle: Buffer }>("SELECT user_handle FROM passkey_user_handles WHERE subject = ?");
    this.#insert = db.prepare("INSERT INTO passkey_user_handles (subject, user_handle) VALUES (?, ?) ON CONFLICT (subject) DO NOTHING");
    this.#random = random;
  }

  /** Returns the subject's handle, creating it on first use. */
  For(subject: string): Uint8Array {
    const row = this.#get.get(subject);
    if (row !== undefined) return new Uint8Array(row.user_handle);
    this.#insert.run(subject, Buffer.from(this.#random.read(32)));
    const created = this.#get.get(subject);
    return new Uint8Array(created?.user_handle ?? []);
  }
}
