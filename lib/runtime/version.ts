/** The build version `GET /api/version` reports (SPEC §2.1, §9): "dev" unless `dist/scripts/stamp-version.js` rewrote the compiled copy (README "Versioning"). */
export const BuildVersion: string = "dev";
