/*
 * latch/account's handlers and the starter's account pages (pages/security.ts,
 * pages/account-life.ts), mounted in one call: `GET /account/security` (the
 * sessions, the address, the person's data) with its session forms `POST
 * /account/sessions/revoke` and `/revoke-others`; the change of address,
 * `POST /account/address` (field `email`), `GET /account/address/confirm`
 * (the new inbox's link), `POST /account/address/code` (field `code`); the
 * old inbox's way back, `GET` and `POST /account/address/undo` (field
 * `token`); `GET /account/export` (the person's data as one JSON download)
 * and `POST /account/delete` (field `email`, the person's own address).
 * What changes the account or reads all of it sits behind the fresh
 * session (lib/account README); the two links work from a mail. The demo
 * and step 9 of docs/guide.md mount it.
 */
import type { Account } from "latch/account";
import type { Assets } from "latch/assets";
import type { Passkey } from "latch/passkey";
import type { Group, Mux } from "latch/router";
import type { Signin } from "latch/signin";
import { undoPage } from "./pages/account-life.ts";
import { securityPage } from "./pages/security.ts";
import type { Shell } from "./pages/teams.ts";

/**
 * The paths the pages link and post to, as latch/account's `Config` names
 * them: spread into `create` so the component redirects where the pages
 * are. `AccountPath` is also sign-in's `SessionsPath` and the security
 * notices' `SecurityPath`.
 */
export const ACCOUNT_PATHS = {
  AccountPath: "/account/security",
  ConfirmPath: "/account/address/confirm",
  ReversePath: "/account/address/undo",
} as const;

/** Where the account pages mount, and what they render with. */
export interface AccountPagesDeps {
  mux: Mux;
  /** Routes behind RequireSession. */
  signedIn: Group;
  /** Routes behind RequireFreshSession. */
  fresh: Group;
  /** latch/account's component, created with `ACCOUNT_PATHS`. */
  account: Account;
  auth: Signin;
  keys: Passkey;
  assets: Assets;
  /** The application's layout. */
  shell: Shell;
}

/** Mounts the account pages and handlers (the file's header lists them). */
export function mountAccountPages({ mux, signedIn, fresh, account, auth, keys, assets, shell }: AccountPagesDeps): void {
  fresh.Handle(`GET ${ACCOUNT_PATHS.AccountPath}`, securityPage(assets, shell, auth.Sessions, keys));
  fresh.Handle("POST /account/sessions/revoke", auth.RevokeSession);
  fresh.Handle("POST /account/sessions/revoke-others", auth.RevokeOtherSessions);
  fresh.Handle("POST /account/address", account.RequestChange);
  mux.Handle(`GET ${ACCOUNT_PATHS.ConfirmPath}`, account.ConfirmLink);
  signedIn.Handle("POST /account/address/code", account.ConfirmCode);
  mux.Handle(`GET ${ACCOUNT_PATHS.ReversePath}`, undoPage(assets));
  mux.Handle(`POST ${ACCOUNT_PATHS.ReversePath}`, account.Reverse);
  fresh.Handle("GET /account/export", account.Export);
  fresh.Handle("POST /account/delete", account.Delete);
}
