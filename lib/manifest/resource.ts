/*
 * The declarative model of a resource: what a generator turns into a store, list page and form. `Resource` is a class
 * only to carry the contract's `Resource.Validate` method; its fields are the plain `ResourceSpec`, so a manifest read
 * from JSON is checked the same way (`validateResource`).
 */
import type { ResourceSpec } from "./spec.ts";
import { validateResource } from "./validate.ts";

/** A resource's fields: `ResourceSpec`'s, declared there once (the class below adds `Validate`). */
export interface Resource extends ResourceSpec {}

/**
 * A resource of the manifest. The constructor only copies (a missing
 * `Scope` stays missing); call `Validate()` before generating from it.
 *
 * @example
 * const invoices = new Resource({ Name: "invoices", Route: "/invoices", Store: StoreKind.Exclusive,
 *   Scope: ScopeKind.UserScoped, List: { Columns: [{ Field: "title" }] },
 *   Form: { Fields: [{ Name: "title", Label: "Title", Kind: Kind.Text, Required: true }] } });
 * invoices.Validate();
 */
export class Resource {
  constructor(spec: ResourceSpec) {
    const { Name, Route, Store, Scope, List, Form, History, Title, Rules } = spec;
    Object.assign(
      this,
      { Name, Route, Store, Scope, List, Form },
      History === undefined ? {} : { History },
      Title === undefined ? {} : { Title },
      Rules === undefined ? {} : { Rules },
    );
  }

  /**
   * Checks the resource; throws `ManifestError` (`ERR_MANIFEST_*`) naming
   * the resource and field at fault (see `validateResource` for the rules).
   */
  Validate(): void {
    validateResource(this);
  }
}
