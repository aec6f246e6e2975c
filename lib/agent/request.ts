/*
 * Who is calling (SPEC §2.3): "agent:<name>" for a request whose token `verifyBearer` accepted, acting for the person who
 * minted it; else the human of the session. The grant lives in a request slot only this module's token check writes, so
 * no header, cookie, body field or application code can make a request an agent or change whom it acts for.
 */
import type { IncomingMessage } from "node:http";
import { bindCredentialCheck, requestSlot } from "../internal/index.ts";
import { currentSession } from "../session/index.ts";
import { agentActor, humanActor, type Actor } from "./actor.ts";
import type { AgentTokens, TokenGrant } from "./tokens.ts";

const grants = requestSlot<TokenGrant>();

/** Returns the grant of the request's verified agent token, or undefined. */
export function grantFrom(req: IncomingMessage): TokenGrant | undefined {
  return grants.get(req);
}

/** Returns the request's actor: `agent:<name>` for a verified agent token, otherwise the human. */
export function actorFrom(req: IncomingMessage): Actor {
  const grant = grants.get(req);
  return grant === undefined ? humanActor() : agentActor(grant.Name);
}

/**
 * Returns the person the request acts for: the minting person for an agent
 * token, the session subject for a human, or undefined when neither.
 */
export function subjectFrom(req: IncomingMessage): string | undefined {
  return grants.get(req)?.Subject ?? currentSession(req)?.Subject;
}

/**
 * Returns the token of an `Authorization: Bearer <token>` header (RFC 6750 §2.1; the scheme is case-insensitive, RFC
 * 9110 §11.1), "" for any other Authorization value, or undefined when the header is absent.
 */
export function bearerToken(req: IncomingMessage): string | undefined {
  const header = req.headers.authorization;
  if (header === undefined) return undefined;
  const match = /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i.exec(header);
  return match?.[1] ?? "";
}

/**
 * Checks the request's bearer token: "none" without an Authorization header (the caller may still have a session),
 * "invalid" for any Authorization that is not a live token, else the token's grant, which is then bound to `req`: from
 * here on the request's actor is the agent. `resource` is the absolute URL of the endpoint asking (`<origin>/mcp`): an
 * OAuth access token issued for another resource is "invalid" here.
 */
export async function verifyBearer(req: IncomingMessage, tokens: AgentTokens, resource?: string): Promise<TokenGrant | "none" | "invalid"> {
  const token = bearerToken(req);
  if (token === undefined) return "none";
  // RFC 6750 §3.1: malformed, unknown and revoked tokens all get invalid_token, one answer, so a token's state cannot be probed.
  const grant = token === "" ? undefined : await tokens.verify(token, resource);
  if (grant === undefined) return "invalid";
  grants.set(req, grant);
  // A call that commits later asks again whether the token still acts for its person (lib/internal credential.ts):
  // still live (not revoked by a change of address, a deletion or its person), for the same subject.
  bindCredentialCheck(req, (_req, subject) => subject === grant.Subject && tokens.holds(subject, grant.TokenID), true);
  return grant;
}
