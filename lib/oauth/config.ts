/* What `newOAuthServer` takes and returns, and the two things an application may give it: a client directory and a consent page. */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { AgentTokens } from "../agent/index.ts";
import type { DB } from "../db/index.ts";
import type { Clock, HandlerFunc, RandomReader } from "../http/index.ts";
import type { Sessions } from "../session/index.ts";
import type { OAuthClient } from "./client.ts";

/** Where clients are found: latch/oauth's `OAuthClients`, or any directory of the same two methods. */
export interface ClientDirectory {
  /**
   * The client of `clientId`; rejects with `OAuthError` invalid_client when there is none. `req` is the
   * authorization request asking: whom a fetch counts for, and whether it came over loopback.
   */
  resolve(clientId: string, req?: IncomingMessage): Promise<OAuthClient>;
  /** Whether `uri` is one of `client`'s redirect URIs (exactly; RFC 8252 loopback with any port). */
  redirectAllowed(client: OAuthClient, uri: string): boolean;
  /** `POST /oauth/register` (RFC 7591); without it the server offers no registration endpoint. */
  handleRegister?: HandlerFunc;
  /** Called when the client is issued tokens: a registration in use does not expire. */
  touch?(clientId: string): void;
  /** Called by `Sweep`, one step of `sweepInSteps` (lib/db): deletes at most `limit` registrations that no longer resolve; returns how many. */
  sweep?(limit: number): number;
}

/** What the consent page shows and posts back: the application renders it, latch decides. */
export interface Consent {
  /** The client, as it named itself, and its host ("localhost" for a loopback client). */
  readonly Client: { readonly Name: string; readonly Host: string };
  /** "read", or "write" (which includes read; every write call still waits for the person's approval). */
  readonly Access: "read" | "write";
  /** The protected resource the access is for (`<origin>/mcp`). */
  readonly Resource: string;
  /** Where the form posts (`/oauth/authorize`, method POST), with `decision` "allow" or "deny". */
  readonly Action: string;
  /** Hidden fields the form must post back unchanged: the request, validated again on the decision. */
  readonly Fields: readonly (readonly [string, string])[];
}

/** What `newOAuthServer` needs. */
export interface OAuthServerConfig {
  /** The database holding the agent and oauth schemas. */
  DB: DB;
  /** The agent token store grants are minted in (give it `Events` so mints and revocations are audited). */
  Tokens: AgentTokens;
  /**
   * Where clients are found. @default latch's own: Client ID Metadata Documents fetched against SSRF (trusting Node's
   * CA store, `NODE_EXTRA_CA_CERTS` included) and RFC 7591 registration, in the `oauth_clients` table of `Schema`
   */
  Clients?: ClientDirectory;
  /** The session store: the person who consents is the request's session. */
  Sessions: Sessions;
  /** The application's public origin: the issuer. */
  Origin: string;
  /** Paths of the protected resources tokens may be asked for; the first is the default. @default ["/mcp", "/api/tools"] */
  Resources?: readonly string[];
  /** Where a person without a session signs in, given `?next=` the authorization request. */
  SigninPath: string;
  /** Where a session too old for write access goes (with `?next=`). @default SigninPath */
  StalePath?: string;
  /** How recently the person must have signed in to allow write access, ms. @default 5 minutes (OAUTH_WRITE_FRESH_FOR) */
  FreshFor?: number;
  /** Renders the consent page for the request's person. */
  ConsentPage: (req: IncomingMessage, res: ServerResponse, consent: Consent) => void | Promise<void>;
  /** Shows a refused request the client cannot be told of (the application's `writeError`). @default plain text */
  ErrorPage?: (req: IncomingMessage, res: ServerResponse, status: number, message: string) => void;
  /** @default systemClock */
  Clock?: Clock;
  /** @default cryptoRandom */
  Random?: RandomReader;
}

/** The server's handlers. */
export interface OAuthServer {
  /** Mount at `/oauth/` (every method). */
  Handler: HandlerFunc;
  /** Mount at `/.well-known/` (every method); the application's own well-known routes stay more specific. */
  WellKnown: HandlerFunc;
  /** The issuer (the origin), for `authorization_servers` of the resource metadata. */
  Issuer: string;
  /** The absolute URLs of the protected resources. */
  Resources: readonly string[];
  /** The scopes, for `scopes_supported` of the resource metadata. */
  Scopes: readonly string[];
  /** Deletes what can no longer be used, in lib/db's bounded steps (README, Housekeeping); resolves with the counts. */
  Sweep(now: Date): Promise<{ Codes: number; RefreshTokens: number; AccessTokens: number; Clients: number }>;
}
