/*
 * OAuth 2.0 Protected Resource Metadata (RFC 9728) for the MCP endpoint: how a client learns from a 401 what the endpoint
 * is and how to present a token, naming latch/oauth as the authorization server when the application runs it.
 */
import type { HandlerFunc } from "../http/index.ts";
import { writeJSON } from "../http/index.ts";

/** RFC 9728 §3: the well-known path segment of protected resource metadata. */
export const RESOURCE_METADATA_PATH = "/.well-known/oauth-protected-resource";

/**
 * Returns the metadata URL of resource `resource` (an absolute URL): the
 * well-known segment inserted between its host and its path (RFC 9728 §3.1).
 */
export function resourceMetadataURL(resource: string): string {
  const url = new URL(resource);
  const path = url.pathname === "/" ? "" : url.pathname;
  return new URL(`${RESOURCE_METADATA_PATH}${path}`, url.origin).href;
}

/**
 * Returns the handler answering `GET <RESOURCE_METADATA_PATH><path>` with the metadata of `resource`. RFC 9728 §3.3:
 * `resource` is the identifier the metadata URL was derived from, so the path-suffixed document names the endpoint and
 * the bare one names the application.
 */
export function resourceMetadataHandler(
  resource: string,
  name: string,
  documentation?: string,
  server?: { readonly Issuer: string; readonly Scopes: readonly string[] },
): HandlerFunc {
  const document = {
    resource,
    // RFC 9728 §2, MCP 2025-11-25 authorization §Authorization Server Location: where a client gets a token.
    ...(server !== undefined && { authorization_servers: [server.Issuer], scopes_supported: server.Scopes }),
    // RFC 6750 §2.1: agent tokens are accepted in the Authorization header only.
    bearer_methods_supported: ["header"],
    resource_name: name,
    ...(documentation !== undefined && { resource_documentation: documentation }),
  };
  return (_req, res) => writeJSON(res, 200, document);
}
