/*
 * The operators schema (lib/db `Step`s): one row per suspended person, keyed by their address as session subjects are.
 * Reactivation deletes the row; the audit streams keep the history (operators.ts). Times are Unix ms.
 */
import type { Step } from "../db/index.ts";

/** Schema steps of the operators module. */
export const Schema: readonly Step[] = [
  {
    Name: "operators/001-suspensions",
    SQL: `CREATE TABLE operator_suspensions (
  subject TEXT PRIMARY KEY,
  reason TEXT NOT NULL,
  operator TEXT NOT NULL,
  suspended_at INTEGER NOT NULL
) STRICT;`,
  },
];
