/*
 * The routes of latch/operators' handlers and the starter's operator pages
 * (pages/operators.ts), mounted in one call under `path` (the component's
 * `OperatorsPath`): `GET path` (find people), `GET path/person?address=`,
 * and the POSTs `path/suspend`, `path/reactivate`, `path/end-access`,
 * `path/reset-passkeys`, `path/end-everyone` (the incident action, field
 * `confirm`: the host the page shows), and `GET path/audit?address=` (the
 * person's audit stream as JSON Lines). Every route is behind `Operators.Require`: 404 for
 * anyone not an operator, the step-up page for an operator whose session
 * is not fresh or not confirmed by a passkey. The demo mounts it.
 */
import type { Assets } from "latch/assets";
import { queryParams } from "latch/http";
import type { Operators } from "latch/operators";
import type { Mux } from "latch/router";
import { normalizeAddress } from "latch/signin";
import { peoplePage, personPage } from "./pages/operators.ts";
import type { Shell } from "./pages/teams.ts";

/** Where the operator pages mount, and what they render with. */
export interface OperatorPagesDeps {
  mux: Mux;
  operators: Operators;
  /** The component's `OperatorsPath`. */
  path: string;
  assets: Assets;
  shell: Shell;
}

/** Mounts the operators' pages and handlers (the file's header lists them). */
export function mountOperatorPages({ mux, operators, path, assets, shell }: OperatorPagesDeps): void {
  const ops = mux.With(operators.Require);
  ops.Handle(`GET ${path}`, (req, res) => {
    const query = queryParams(req);
    const q = (query.get("q") ?? "").trim();
    const found = q === "" ? undefined : operators.find(q, query.get("after") ?? undefined);
    peoplePage(req, res, assets, shell, found, operators.EveryonePhrase);
  });
  ops.Handle(`GET ${path}/person`, (req, res) => {
    const subject = normalizeAddress(queryParams(req).get("address") ?? "") ?? "";
    personPage(req, res, assets, shell, path, operators.view(subject));
  });
  ops.Handle(`POST ${path}/suspend`, operators.Suspend);
  ops.Handle(`POST ${path}/reactivate`, operators.Reactivate);
  ops.Handle(`POST ${path}/end-access`, operators.EndAccess);
  ops.Handle(`POST ${path}/reset-passkeys`, operators.ResetPasskeys);
  ops.Handle(`POST ${path}/end-everyone`, operators.EndEveryone);
  ops.Handle(`GET ${path}/audit`, operators.ExportAudit);
}
