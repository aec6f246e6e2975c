/*
 * Step 9 of docs/guide.md: a person's account after sign-in. latch/account
 * moves the account to a new address (confirmed from the new inbox, with a
 * way back mailed to the old one), exports everything about the person as
 * one JSON download, and deletes the account. Each module answers for its
 * own rows: the steps before this one each add theirs to `Rows`. The pages
 * are the starter's (`/account/security`: sessions, address, data).
 */
import { create, type Account } from "latch/account";
import * as agent from "latch/agent";
import type { Assets } from "latch/assets";
import type { DB } from "latch/db";
import type { Mailer } from "latch/mail";
import { accountRows } from "latch/manifest";
import * as oauth from "latch/oauth";
import type { Passkey } from "latch/passkey";
import type { Group, Mux } from "latch/router";
import type { AuthEventSink } from "latch/session";
import type { Signin } from "latch/signin";
import * as teams from "latch/teams";
import { ACCOUNT_PATHS, mountAccountPages } from "../starter/account.ts";
import { render } from "../starter/pages/layout.ts";
import { tasks } from "../starter/tasks.ts";
import { expenses, projects } from "./expenses.ts";

/** What the account step needs. */
export interface AccountDeps {
  db: DB;
  mux: Mux;
  auth: Signin;
  keys: Passkey;
  /** Routes behind RequireSession. */
  signedIn: Group;
  /** Routes behind RequireFreshSession: changing or reading the whole account needs a recent sign-in. */
  fresh: Group;
  assets: Assets;
  /** Step 2's mailer, sender and sink: the confirmation, the old address's notice and the auth events go the same way. */
  mailer: Mailer;
  MailFrom: string;
  onAuthEvent: AuthEventSink;
  InstanceKey: string;
  Origin: string;
}

/** Mounts the account's pages and handlers; returns the `Account` (its `Sweep` joins main.ts's). */
export function mountAccount({
  db,
  mux,
  auth,
  keys,
  signedIn,
  fresh,
  assets,
  mailer,
  MailFrom,
  onAuthEvent,
  InstanceKey,
  Origin,
}: AccountDeps): Account {
  // In deletion order: OAuth's grants name agent tokens, so first; an expense refers to a project, so before it.
  const agentRows = agent.accountRows(db);
  const account = create({
    DB: db,
    Signin: auth,
    Passkey: keys,
    Origin,
    InstanceKey,
    Rows: [oauth.accountRows(db, agentRows), agentRows, teams.accountRows(db), accountRows(db, [expenses, projects, tasks])],
    ...ACCOUNT_PATHS,
    SigninPath: "/signin",
    StalePath: "/stepup",
    Mailer: mailer,
    MailFrom,
    OnAuthEvent: onAuthEvent,
  });
  mountAccountPages({ mux, signedIn, fresh, account, auth, keys, assets, shell: render });
  return account;
}
