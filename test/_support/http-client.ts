/*
 * A tiny HTTP client for integration tests: one request per connection
 * (no keep-alive races), a cookie jar, and the response as the client saw it.
 */
import { request as httpRequest, type IncomingHttpHeaders } from "node:http";

/**
 * A minimal browser cookie store: name to value, updated from Set-Cookie.
 * The one cookie jar of the suites (the HTTP clients here, in
 * test/passkey/routes-stack.ts and in oidc-provider.ts all keep one).
 */
export class CookieJar {
  readonly cookies: Map<string, string> = new Map();
  /** Applies Set-Cookie values; an empty value, `Max-Age=0` or an `Expires` of the epoch removes the cookie. */
  store(setCookie: readonly string[]): void {
    for (const line of setCookie) {
      const pair = cookiePair(line);
      const eq = pair.indexOf("=");
      const name = pair.slice(0, eq);
      const value = pair.slice(eq + 1);
      if (value === "" || /;\s*max-age=0\s*(;|$)|;\s*expires=thu, 01 jan 1970/i.test(line)) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }
  /** The Cookie request header, or undefined when empty. */
  header(): string | undefined {
    if (this.cookies.size === 0) return undefined;
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join("; ");
  }
}

/** Returns the Set-Cookie line for cookie `name` among `setCookie`, or undefined. */
export function setCookieLine(setCookie: readonly string[], name: string): string | undefined {
  return setCookie.find((line) => line.startsWith(`${name}=`));
}

/** Returns the `name=value` pair a browser sends back (in a Cookie header) for a Set-Cookie line. */
export function cookiePair(line: string): string {
  return line.split(";")[0] ?? "";
}

/** A response as the client saw it. */
export interface TestResponse {
  status: number;
  headers: IncomingHttpHeaders;
  setCookie: string[];
  location: string | undefined;
  body: string;
}

/** Options of one request. */
export interface RequestOptions {
  jar?: CookieJar;
  headers?: Record<string, string>;
  /** A form body (urlencoded) or a raw body with the given headers. */
  form?: Record<string, string>;
  body?: string | Buffer;
  /** signin-app: send without the asking browser's sign-in binding cookie (another device, a mail scanner). */
  unbound?: boolean;
  /** Bind the request to this local address (a distinct client, e.g. "127.0.2.1"). */
  localAddress?: string;
}

/**
 * Sends one request to `base` (a path or a URL of any origin is re-based
 * onto it) on a fresh connection; unsafe methods carry `Origin: origin`
 * unless `options.headers` overrides it.
 */
export function sendRequest(base: string, method: string, target: string, options: RequestOptions, origin: string): Promise<TestResponse> {
  const url = new URL(target, base);
  const headers: Record<string, string> = {};
  if (method !== "GET" && method !== "HEAD") headers["Origin"] = origin;
  let body: string | Buffer | undefined = options.body;
  if (options.form !== undefined) {
    headers["Content-Type"] = "application/x-www-form-urlencoded";
    body = new URLSearchParams(options.form).toString();
  }
  const cookie = options.jar?.header();
  if (cookie !== undefined) headers["Cookie"] = cookie;
  Object.assign(headers, options.headers);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      new URL(url.pathname + url.search, base),
      { method, headers, agent: false, ...(options.localAddress !== undefined && { localAddress: options.localAddress }) },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => {
          const setCookie = res.headers["set-cookie"] ?? [];
          options.jar?.store(setCookie);
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            setCookie,
            location: res.headers.location,
            body: Buffer.concat(chunks).toString("utf8"),
          });
        });
        res.on("error", reject);
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}
