/*
 * The plain shapes of a manifest (SPEC §2.5): a resource as written, its list and its form. Types only, so `Resource`
 * (resource.ts), validation and everything mounted from a resource read them without importing one another.
 */
import type { Kind, ScopeKind, StoreKind } from "./kinds.ts";
import type { FieldValue } from "./merge.ts";

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
  /** Longest accepted text, in characters (Text and Textarea), at most 50 000. @default 200 for Text, 2000 for Textarea */
  readonly MaxLength?: number;
  /** ISO 4217 code of a Money field, one that `Intl.supportedValuesOf("currency")` lists; its minor unit decides the decimals accepted. @default "USD" */
  readonly Currency?: string;
  /** Smallest value of an Integer field. @default -INTEGER_LIMIT (-(2^53 - 1)) */
  readonly Min?: number;
  /** Largest value of an Integer field. @default INTEGER_LIMIT (2^53 - 1) */
  readonly Max?: number;
  /**
   * The values a Choice field accepts, in the order its select shows them: `Value` is stored (a-z, 0-9, "_" or "-", at
   * most 63 characters) and `Label` is a catalog key, like the field's own.
   */
  readonly Choices?: readonly { readonly Value: string; readonly Label: string }[];
  /**
   * The resource a Reference field points to, by its `Name`: a record of
   * it (the same person's, when both are user-scoped) is stored as its id.
   */
  readonly References?: string;
  /**
   * What deleting a referenced record does to a Reference field: "refuse" the delete while a record refers to it, or
   * "clear" the field (set it empty, an update of the referring record). @default "refuse"
   */
  readonly OnDelete?: "refuse" | "clear";
  /** A File field's largest file, in bytes, at most FILE_MAX_BYTES_LIMIT (100 MiB). @default 10 MiB (FILE_MAX_BYTES_DEFAULT) */
  readonly MaxBytes?: number;
  /** The media types a File field accepts, recognised by their bytes: "application/pdf", "image/png", "image/jpeg". @default all three */
  readonly Accept?: readonly string[];
}

/** One column of the list page. */
export interface Column {
  /** A form field's name, or a fixed column (id, created_at, updated_at; owner when user-scoped). */
  readonly Field: string;
  /** Header text. @default the field's label */
  readonly Label?: string;
}

/**
 * One filter of the list page: a Text, Textarea, Email or URL field filters by "contains" (query parameter `<field>`);
 * a Money, Integer or Date field by range (`<field>_min`, `<field>_max`, both ends included; amounts and numbers in the
 * request's locale, dates ISO); a Choice field by one of its values and a Boolean field by `yes` or `no` (`<field>`).
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

/**
 * One change of a field that adding cannot express, in a resource's `History` (latch's extension of the contract;
 * README "Changing a field"): applied once at boot as the schema step `resource/<name>/history-<Step>`, in order, never
 * edited once applied.
 */
export type Change =
  /** The field `From` is now called `To` (its values kept). */
  | { readonly Step: string; readonly Rename: { readonly From: string; readonly To: string } }
  /**
   * The field's kind changed from `From` to `To`, its values converted
   * (README's table; a value that does not convert refuses the boot).
   * `Currency`: the Money field's currency before a change from Money. @default "USD"
   */
  | {
      readonly Step: string;
      readonly Retype: { readonly Field: string; readonly From: Kind; readonly To: Kind; readonly Currency?: string };
    }
  /** The field is gone, its values with it. */
  | { readonly Step: string; readonly Remove: { readonly Field: string } };

/** A resource as written in a manifest. */
export interface ResourceSpec {
  /** Lowercase SQL identifier, also the table or stream name. */
  readonly Name: string;
  /** Mount path: "/" then lowercase segments, no trailing slash. */
  readonly Route: string;
  readonly Store: StoreKind;
  /**
   * Whose records the resource shows: `ScopeKind.UserScoped` (each person their own; the recommendation) or
   * `ScopeKind.Unscoped` (everyone signed in sees every record). Required: no default (docs/spec.md §2.5).
   */
  readonly Scope: ScopeKind;
  readonly List: List;
  readonly Form: Form;
  /** The renames, kind changes and removals of its fields, oldest first (latch's extension; README "Changing a field"). @default [] */
  readonly History?: readonly Change[];
  /**
   * The Text field that names a record wherever a person reads it: a reference to it, its page, an approval of a change
   * to it (latch's extension; README "A record's name"). @default the first Text field; the id when there is none
   */
  readonly Title?: string;
  /**
   * Rules relating fields, checked in every create and update's transaction on the values it would store (latch's
   * extension; README "Rules across fields"): a comparison of two Date, Integer or Money fields, or a check reading the
   * record a Reference field names. @default []
   */
  readonly Rules?: readonly (
    | /** `Field` is later (greater) than `After`. */ { readonly Field: string; readonly After: string }
    | /** `Field` is `AtLeast` or later (greater). */ { readonly Field: string; readonly AtLeast: string }
    | /** `Field` is earlier (smaller) than `Before`. */ { readonly Field: string; readonly Before: string }
    | /** `Field` is `AtMost` or earlier (smaller). */ { readonly Field: string; readonly AtMost: string }
    | {
        /** The fields the rule relates: each shows `Message` when it fails. */
        readonly Fields: readonly string[];
        /** The catalog key of what a person reads beside each field. */
        readonly Message: string;
        /**
         * Whether `values` (the record as it would be stored, in `MountedResource.Store`'s values) hold; `referenced(field)`
         * reads the record a Reference field of `values` names, in the same transaction, or undefined (none, or not the
         * writer's to read).
         */
        readonly Check: (
          values: Readonly<Record<string, FieldValue>>,
          referenced: (field: string) => Readonly<Record<string, FieldValue>> | undefined,
        ) => boolean;
      }
  )[];
}
