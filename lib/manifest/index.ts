/// <reference types="node" preserve="true" />
export { Resource } from "./resource.ts";
export { Kind, StoreKind, ScopeKind, isKind, isStoreKind, isScopeKind } from "./kinds.ts";
export { validateResource, validateResources, FIXED_COLUMNS, OWNER_COLUMN, NAME_PATTERN, ROUTE_PATTERN } from "./validate.ts";
export { MANIFEST_ERROR_CODES, ManifestError, isManifestError } from "./errors.ts";
export type { ResourceSpec, Field, Column, Filter, List, Form } from "./resource.ts";
export type { ManifestErrorCode, ManifestLocation } from "./errors.ts";
