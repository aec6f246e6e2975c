/*
 * The build version reported by `GET /api/version` (SPEC §2.1, §9).
 * Overridden at build time by `node dist/scripts/stamp-version.js <v>`,
 * which rewrites the compiled copy of this file; see README "Versioning".
 */

/** The build version; "dev" unless stamped at build time. */
export const BuildVersion: string = "dev";
