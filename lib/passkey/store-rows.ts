/*
 * Narrowing of passkey_credentials rows (better-sqlite3 returns `unknown`
 * shapes) into `PasskeyCredential`, without casts.
 */
import { PasskeyError, type RegisteredCredential } from "../webauthn/index.ts";

/**
 * A stored credential record (WebAuthn L3 §4 "credential record"): the
 * fields `verifyRegistration` returned, declared there once, plus what the
 * store adds. `signCount` and `backupState` move on with each accepted
 * assertion; the attestation outcome is not kept.
 */
export interface PasskeyCredential extends Pick<
  RegisteredCredential,
  "id" | "publicKey" | "algorithm" | "signCount" | "transports" | "backupEligible" | "backupState" | "aaguid"
> {
  /** Owner. */
  subject: string;
  /** User handle the credential was created for, when recorded. */
  userHandle: Uint8Array | undefined;
  /** Display name. */
  name: string;
  /** When it was registered. */
  createdAt: Date;
  /** When it last verified an assertion. */
  lastUsedAt: Date | undefined;
}

function broken(column: string): PasskeyError {
  return new PasskeyError("ERR_PASSKEY_MALFORMED_CREDENTIAL", `passkey store: column ${column} has an unexpected type`, { step: "store" });
}

function get(row: object, column: string): unknown {
  const value: unknown = Reflect.get(row, column);
  return value;
}

function str(row: object, column: string): string {
  const v = get(row, column);
  if (typeof v !== "string") throw broken(column);
  return v;
}

function num(row: object, column: string): number {
  const v = get(row, column);
  if (typeof v !== "number") throw broken(column);
  return v;
}

function parseTransports(text: string): string[] {
  const value: unknown = JSON.parse(text);
  return Array.isArray(value) ? value.filter((t): t is string => typeof t === "string") : [];
}

/** Converts one passkey_credentials row. Throws PasskeyError if a column has the wrong type. */
export function readCredentialRow(row: unknown): PasskeyCredential {
  if (typeof row !== "object" || row === null) throw broken("*");
  const publicKey = get(row, "public_key");
  const handle = get(row, "user_handle");
  const lastUsed = get(row, "last_used_at");
  if (!(publicKey instanceof Uint8Array)) throw broken("public_key");
  if (handle !== null && !(handle instanceof Uint8Array)) throw broken("user_handle");
  if (lastUsed !== null && typeof lastUsed !== "number") throw broken("last_used_at");
  return {
    id: str(row, "id"),
    subject: str(row, "subject"),
    publicKey: new Uint8Array(publicKey),
    algorithm: num(row, "algorithm"),
    signCount: num(row, "sign_count"),
    transports: parseTransports(str(row, "transports")),
    backupEligible: num(row, "backup_eligible") === 1,
    backupState: num(row, "backup_state") === 1,
    userHandle: handle === null ? undefined : new Uint8Array(handle),
    name: str(row, "name"),
    aaguid: str(row, "aaguid"),
    createdAt: new Date(num(row, "created_at")),
    lastUsedAt: lastUsed === null ? undefined : new Date(lastUsed),
  };
}
