/// <reference types="node" preserve="true" />
export { Resource } from "./resource.ts";
export { Kind, StoreKind, ScopeKind } from "./kinds.ts";
export { mountResource } from "./mount.ts";
export { resourceSchema } from "./schema.ts";
export { isResourceView } from "./views.ts";
export type { Field, Column, Filter, List, Form, Change } from "./spec.ts";
export type { ResourceView } from "./views.ts";
export { accountRows } from "./account-rows.ts";
// Named by the signatures above and by this module's README (issue 42: a public signature names only public types).
export type { MountOptions, MountedResource } from "./mount-config.ts";
export type { ResourceSpec } from "./spec.ts";
export type { RenderCtx } from "./mount-config.ts";
export type { RecordStore, Writer, UpdateOutcome, FieldConflict } from "./store.ts";
export type { ListQuery, ListFilter, StoredRecord } from "./table.ts";
export type { FieldValue } from "./merge.ts";
export type { RecordValues } from "./values.ts";
