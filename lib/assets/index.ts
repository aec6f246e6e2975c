/// <reference types="node" preserve="true" />
export { NewAssets, CLIENT_DIR, ASSET_CACHE_CONTROL } from "./assets.ts";
export { ASSETS_ERROR_CODES, AssetsError, isAssetsError } from "./errors.ts";
export { contentTypeFor, DEFAULT_CONTENT_TYPE } from "./content-type.ts";
export { chooseCoding, parseAcceptEncoding, matchesIfNoneMatch } from "./negotiate.ts";
export { hashBytes, fingerprintURL, HASH_LENGTH, STATIC_PREFIX } from "./load.ts";
export type { Assets } from "./assets.ts";
export type { AssetsErrorCode } from "./errors.ts";
export type { Coding } from "./negotiate.ts";
