// Configuration of the job handlers (SPEC.md §2.8, §4.3) and what every handler shares: the owner and job of a request, the paths a page refers to.
import type { IncomingMessage, ServerResponse } from "node:http";
import {
  countProblem,
  durationProblem,
  eventStreams,
  positiveProblem,
  STREAM_LIMITS,
  writeText,
  type ServeStream,
} from "../internal/index.ts";
import type { HandlerFunc } from "../http/index.ts";
import { currentSession } from "../session/index.ts";
import { JobsError } from "./errors.ts";
import { Status, type Job } from "./job.ts";
import type { Registry } from "./registry.ts";

/** What the status page and the fragment are rendered from (SPEC.md §2.8). */
export interface PageData {
  /** The job, as its owner may see it. */
  Job: Job;
  /** Path of the fragment route; goes in `data-poll` (SPEC.md §4.3). */
  FragmentPath: string;
  /** Path of the events route; goes in `data-poll-push` to opt in to server push. */
  EventsPath: string;
  /** Poll interval in seconds; feeds `data-poll-every` and the no-script meta refresh. */
  PollSeconds: number;
}

/** Renders the status page or the fragment from `PageData`, writing the whole response (not `Ctx.Render`, which renders a named view). */
export type RenderPageFunc = (req: IncomingMessage, res: ServerResponse, data: PageData) => void | Promise<void>;

/** Configuration of `newHandlers`. `Jobs`, `Render` and `RenderFragment` are required (SPEC.md §2.8). */
export interface Config {
  /** The job registry. */
  Jobs: Registry;
  /** Renders the full status page. */
  Render: RenderPageFunc;
  /** Renders the fragment alone, without layout. */
  RenderFragment: RenderPageFunc;
  /**
   * Returns the job owner of the request: unset, the subject of the session
   * the session middleware bound (SPEC.md §5.8); none (or "") answers 401.
   * @default (req) => currentSession(req)?.Subject
   */
  Owner?: (req: IncomingMessage) => string | undefined;
  /**
   * Answers `GET /jobs/{id}` for an unknown job or another owner's: the
   * application's 404 page, in its layout and the request's locale. Called
   * with the status already 404; it keeps it (SPEC.md §4.3). The fragment
   * and the event stream, fetched by script, keep the plain-text 404.
   * @default a plain-text 404
   */
  NotFound?: HandlerFunc;
  /** Returns the `{id}` path value (under the router, `(req) => PathValue(req, "id")`); unset, the segment after `BasePath`. */
  ID?: (req: IncomingMessage) => string | undefined;
  /** Path under which the three routes are mounted. @default "/jobs" */
  BasePath?: string;
  /** Seconds between polls. @default 2 */
  PollSeconds?: number;
  /** Interval of `: ping` comments on the event stream, in ms. @default HEARTBEAT_INTERVAL */
  HeartbeatInterval?: number;
  /** How long a blocked write may wait for `drain` before the connection is destroyed, in ms. @default 10000 */
  WriteTimeout?: number;
  /** Longest life of one event stream, in ms; the browser then reconnects. @default 300000 (5 minutes) */
  StreamLifetime?: number;
  /** Reconnection delay sent as `retry:`, in ms. @default 3000 */
  StreamRetry?: number;
  /** Event streams one owner may hold open at once (across jobs, tabs and devices); one more is refused with 429 and the page polls. @default 10 */
  MaxStreamsPerOwner?: number;
}

/** Interval of `: ping` heartbeats: 15 seconds (SPEC.md §8), in ms; every event stream of latch keeps it. */
export const HEARTBEAT_INTERVAL: 15000 = STREAM_LIMITS.heartbeat;
/** Seconds between fragment polls. */
export const DEFAULT_POLL_SECONDS = 2;

/** A config with every default applied. */
export interface ResolvedConfig {
  readonly jobs: Registry;
  readonly render: RenderPageFunc;
  readonly renderFragment: RenderPageFunc;
  readonly owner: (req: IncomingMessage) => string | undefined;
  readonly id: (req: IncomingMessage) => string | undefined;
  readonly basePath: string;
  readonly pollSeconds: number;
  readonly notFound: HandlerFunc | undefined;
  /** The Events handler's streams, counted per owner. */
  readonly streams: ServeStream;
}

/** Validates `config` and applies defaults; throws `JobsError` (`ERR_JOBS_INVALID_CONFIG`) naming the first bad field. */
export function resolveConfig(config: Config): ResolvedConfig {
  if (typeof config !== "object" || config === null) throw invalid("config is required");
  // SPEC.md §2.8: Jobs, Render and RenderFragment are all required.
  if (typeof config.Jobs !== "object" || config.Jobs === null) throw invalid("Jobs is required");
  if (typeof config.Render !== "function") throw invalid("Render is required");
  if (typeof config.RenderFragment !== "function") throw invalid("RenderFragment is required");
  if (config.NotFound !== undefined && typeof config.NotFound !== "function") throw invalid("NotFound must be a function");
  const basePath = (config.BasePath ?? "/jobs").replace(/\/+$/, "");
  if (!basePath.startsWith("/") || /[\s?#]/.test(basePath)) throw invalid("BasePath must be a path starting with /");
  const basePrefix = basePath + "/";
  return {
    jobs: config.Jobs,
    render: config.Render,
    renderFragment: config.RenderFragment,
    // SPEC.md §5.8: the job owner is the session subject.
    owner: config.Owner ?? ((req) => currentSession(req)?.Subject),

    id: config.ID ?? ((req) => idFromPath(req, basePrefix)),
    basePath,
    pollSeconds: checked("PollSeconds", config.PollSeconds ?? DEFAULT_POLL_SECONDS, positiveProblem),
    notFound: config.NotFound,
    streams: eventStreams({
      heartbeat: checked("HeartbeatInterval", config.HeartbeatInterval ?? HEARTBEAT_INTERVAL, durationProblem),
      writeTimeout: checked("WriteTimeout", config.WriteTimeout ?? STREAM_LIMITS.writeTimeout, durationProblem),
      lifetime: checked("StreamLifetime", config.StreamLifetime ?? STREAM_LIMITS.lifetime, durationProblem),
      retry: checked("StreamRetry", config.StreamRetry ?? STREAM_LIMITS.retry, durationProblem),
      perPerson: checked("MaxStreamsPerOwner", config.MaxStreamsPerOwner ?? STREAM_LIMITS.perPerson, countProblem),
    }),
  };
}

/** Returns the requested job when the request's owner may see it; `undefined` and the status to answer otherwise. */
export function findJob(cfg: ResolvedConfig, req: IncomingMessage): { job: Job; owner: string } | { job: undefined; status: 401 | 404 } {
  const owner = cfg.owner(req);
  if (typeof owner !== "string" || owner === "") return { job: undefined, status: 401 };
  const id = cfg.id(req);
  // SPEC.md §4.3: a wrong owner and an unknown id are indistinguishable (404 both).
  const job = typeof id === "string" ? cfg.jobs.Get(id, owner) : undefined;
  return job === undefined ? { job: undefined, status: 404 } : { job, owner };
}

/** Returns the page data of `job`. */
export function pageData(cfg: ResolvedConfig, job: Job): PageData {
  const page = statusPath(cfg, job);
  return { Job: job, FragmentPath: `${page}/fragment`, EventsPath: `${page}/events`, PollSeconds: cfg.pollSeconds };
}

function statusPath(cfg: ResolvedConfig, job: Job): string {
  return `${cfg.basePath}/${encodeURIComponent(job.ID)}`;
}

/** Where the owner goes once `job` is over: `Location`, else (or when it failed) the status page. */
export function destination(cfg: ResolvedConfig, job: Job): string {
  return job.Status !== Status.Failed && job.Location !== "" ? job.Location : statusPath(cfg, job);
}

/** Answers the refusal `findJob` chose: 401 without an owner, 404 for a job the owner may not see. */
export function refuse(res: ServerResponse, status: 401 | 404): void {
  res.setHeader("Cache-Control", "no-store");
  writeText(res, status, status === 401 ? "Sign in required." : "Job not found.");
}

function idFromPath(req: IncomingMessage, basePrefix: string): string | undefined {
  const path = (req.url ?? "/").split(/[?#]/)[0] ?? "";
  if (!path.startsWith(basePrefix)) return undefined;
  const segment = path.slice(basePrefix.length).split("/")[0] ?? "";
  try {
    return segment === "" ? undefined : decodeURIComponent(segment);
  } catch {
    return undefined;
  }
}

function checked(name: string, value: number, problem: (value: unknown) => string | undefined): number {
  const why = problem(value);
  if (why !== undefined) throw invalid(`${name} ${why}`);
  return value;
}

function invalid(reason: string): JobsError {
  return new JobsError("ERR_JOBS_INVALID_CONFIG", `new job handlers: ${reason}`);
}
