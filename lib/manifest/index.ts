/// <reference types="node" preserve="true" />
export { Resource } from "./resource.ts";
export { Kind, StoreKind, ScopeKind } from "./kinds.ts";
export { mountResource } from "./mount.ts";
export { resourceSchema } from "./schema.ts";
export { isResourceView } from "./views.ts";
export type { Field, Column, Filter, List, Form, Change } from "./spec.ts";
export type { ResourceView } from "./views.ts";
export { accountRows } from "./account-rows.ts";
