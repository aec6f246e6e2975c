/*
 * The enumerations of the manifest model as `as const` objects plus union types (no `enum`). Each value is its own
 * stable string, safe to write in a JSON manifest.
 */

/** How a form field is edited and stored. */
export const Kind = {
  /** One line of text. */
  Text: "text",
  /** Several lines of text. */
  Textarea: "textarea",
  /** An amount of money, stored as integer minor units. */
  Money: "money",
  /** A calendar date, stored as ISO "YYYY-MM-DD": no time, no time zone. */
  Date: "date",
  /** A whole number, within the field's optional `Min` and `Max`. */
  Integer: "integer",
  /** Yes or no, stored as 1 or 0; an unchecked box is no. */
  Boolean: "boolean",
  /** One of the field's `Choices`, stored as its `Value`, shown as its translated `Label`. */
  Choice: "choice",
  /** An email address, as `<input type="email">` accepts it. */
  Email: "email",
  /** An http or https address, shown as a link. */
  URL: "url",
  /** A record of the resource named by the field's `References`, stored as its id (latch's extension: lib/manifest/README.md "References"). */
  Reference: "reference",
  /**
   * A file attached to the record (latch's extension: lib/manifest/README.md "Attachments"), uploaded to its own route,
   * stored as its attachment's id; `MaxBytes` and `Accept` bound it.
   */
  File: "file",
} as const;

/** A field kind: "text", "textarea", "money", "date", "integer", "boolean", "choice", "email", "url", "reference" or "file". */
export type Kind = (typeof Kind)[keyof typeof Kind];

/** How a resource's records are stored. */
export const StoreKind = {
  /** One SQL table; a write replaces the row. */
  Exclusive: "exclusive",
  /** One event stream per record; concurrent edits merge. */
  Mergeable: "mergeable",
} as const;

/** A store kind: "exclusive" or "mergeable". */
export type StoreKind = (typeof StoreKind)[keyof typeof StoreKind];

/** Whose records a resource shows; a resource names one, there is no default (docs/spec.md §2.5). */
export const ScopeKind = {
  /** Every signed-in user sees, edits and deletes every record. The contract's zero value, yet never implied. */
  Unscoped: "unscoped",
  /** Records are filtered by owner = the session subject. The recommendation. */
  UserScoped: "user",
  /**
   * Records belong to a team (its `team` column; latch's addition): its members read them, members and above write them
   * (lib/teams roles); the Route holds `{team}`, e.g. `/teams/{team}/tasks`.
   */
  TeamScoped: "team",
} as const;

/** A scope kind: "unscoped", "user" or "team". */
export type ScopeKind = (typeof ScopeKind)[keyof typeof ScopeKind];
