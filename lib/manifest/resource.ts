/*
 * The declarative model of a resource: what a generator turns into a
 * store, list page and form. `Resource` is a class only to carry the
 * contract's `Resource.Validate` method; its fields are the plain
 * `ResourceSpec`, so a manifest read from JSON is checked the same way
 * (`validateResource`).
 */
import { ScopeKind, type Kind, type StoreKind } from "./kinds.ts";
import { validateResource } from "./validate.ts";

/** One input of a resource's form, and one column of its store. */
export interface Field {
  /** Column name: a lowercase SQL identifier, not a fixed column. */
  readonly Name: string;
  /** Visible label: a catalog key, translated per request (a missing translation shows the key). */
  readonly Label: string;
  readonly Kind: Kind;
  /** Whether the form refuses an empty value. @default false */
  readonly Required?: boolean;
  /** Hint shown under the input (a catalog key, like `Label`). @default "" */
  readonly Help?: string;
  /** Longest accepted text, in characters (Text and Textarea). @default TEXT_MAX_LENGTH or TEXTAREA_MAX_LENGTH */
  readonly MaxLength?: number;
  /** ISO 4217 code of a Money field, one that `Intl.supportedValuesOf("currency")` lists; its minor unit decides the decimals accepted. @default "USD" */
  readonly Currency?: string;
}

/** One column of the list page. */
export interface Column {
  /** A form field's name, or a fixed column (id, created_at, updated_at; owner when user-scoped). */
  readonly Field: string;
  /** Header text. @default the field's label */
  readonly Label?: string;
}

/**
 * One filter of the list page: a Text or Textarea field filters by "contains"
 * (query parameter `<field>`), a Money field by range (`<field>_min`,
 * `<field>_max`, in the request's locale).
 */
export interface Filter {
  /** A form field's name. */
  readonly Field: string;
  /** Filter label. @default the field's label */
  readonly Label?: string;
}

/** What the list page shows. */
export interface List {
  readonly Columns: readonly Column[];
  /** @default [] */
  readonly Filters?: readonly Filter[];
}

/** What the form edits. */
export interface Form {
  readonly Fields: readonly Field[];
}

/** A resource as written in a manifest. */
export interface ResourceSpec {
  /** Lowercase SQL identifier, also the table or stream name. */
  readonly Name: string;
  /** Mount path: "/" then lowercase segments, no trailing slash. */
  readonly Route: string;
  readonly Store: StoreKind;
  /** @default ScopeKind.Unscoped */
  readonly Scope?: ScopeKind;
  readonly List: List;
  readonly Form: Form;
}

/**
 * A resource of the manifest. The constructor only copies (filling
 * `Scope`); call `Validate()` before generating from it.
 *
 * @example
 * const invoices = new Resource({ Name: "invoices", Route: "/invoices", Store: StoreKind.Exclusive,
 *   Scope: ScopeKind.UserScoped, List: { Columns: [{ Field: "title" }] },
 *   Form: { Fields: [{ Name: "title", Label: "Title", Kind: Kind.Text, Required: true }] } });
 * invoices.Validate();
 */
export class Resource implements ResourceSpec {
  readonly Name: string;
  readonly Route: string;
  readonly Store: StoreKind;
  readonly Scope: ScopeKind;
  readonly List: List;
  readonly Form: Form;

  constructor(spec: ResourceSpec) {
    this.Name = spec.Name;
    this.Route = spec.Route;
    this.Store = spec.Store;
    this.Scope = spec.Scope ?? ScopeKind.Unscoped;
    this.List = spec.List;
    this.Form = spec.Form;
  }

  /**
   * Checks the resource; throws `ManifestError` naming the resource and
   * field at fault (see `validateResource` for the rules).
   */
  Validate(): void {
    validateResource(this);
  }
}
