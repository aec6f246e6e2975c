/*
 * What `mountResource` takes and returns: the application's handles and the request context it renders through.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Approvals, StandingApprovals, ToolDef, ToolRegistry } from "../agent/index.ts";
import type { DB, Step } from "../db/index.ts";
import type { EventStore } from "../events/index.ts";
import type { Clock, Logger, Middleware } from "../http/index.ts";
import type { Mux } from "../router/index.ts";
import type { Teams } from "../teams/index.ts";
import type { Resource } from "./resource.ts";
import type { RecordStore, UpdateOutcome } from "./store.ts";
import type { ListQuery } from "./table.ts";

/**
 * The part of the runtime's `Ctx` a resource renders with (`ctxFrom` from `latch` returns it): its fields are what
 * lib/internal's error pages read (ErrorPageTarget), spelled with public types as a public signature must be.
 */
export interface RenderCtx {
  readonly Render: ((req: IncomingMessage, res: ServerResponse, view: string, data: unknown) => void | Promise<void>) | undefined;
  readonly ErrorPage?: ((req: IncomingMessage, res: ServerResponse, status: number, ref: string) => void) | undefined;
  readonly Logger?: Logger | undefined;
}

/** What `mountResource` needs. */
export interface MountOptions {
  /** The application's one database handle. */
  db: DB;
  mux: Mux;
  /** The tool registry the app hands to its tools API (and any other transport). */
  tools: ToolRegistry;
  /** The event store every change is recorded in, with its actor (on `db`, the one handle). */
  events: EventStore;
  /** The public origin; mutating routes refuse other origins (`crossOriginProtection`). */
  origin: string;
  /** The app's session gate, e.g. `auth.RequireSession`. */
  requireSession: Middleware;
  /** The request context accessor: `ctxFrom` from `latch` (this module sits below the runtime). */
  ctxFrom: (req: IncomingMessage) => RenderCtx | undefined;
  /** Translates a catalog key in the app's default locale, for tool descriptions and confirm sentences. @default the framework's English, else the key */
  label?: (key: string) => string;
  /**
   * The directory a resource's File fields keep their files in (README "Attachments"), e.g. `join(StateDirectory(), "files")`;
   * made when missing. Required by a resource with a File field.
   */
  files?: string | undefined;
  /**
   * A resource's CSV import (README "Import"): the directory its uploads wait in (under the state directory, made when
   * missing, emptied at boot), the job registry its imports run on (latch/jobs `Registry`), and the path of that
   * registry's status page (`GET <jobPage>/{id}`, default "/jobs"). Without it, no import route is mounted.
   */
  imports?:
    | {
        directory: string;
        jobs: {
          Start(
            owner: string,
            name: string,
            fn: (signal: AbortSignal, progress: (text: string) => void) => unknown,
            options?: { Location?: string },
          ): { readonly ID: string };
        };
        jobPage?: string;
      }
    | undefined;
  /** @default systemClock */
  clock?: Clock;
  /** The application's teams (lib/teams): required by a TeamScoped resource, whose every request asks `roleOf` first. */
  teams?: Teams | undefined;
  /** The approvals the app's `ToolInvoker` asks: a TeamScoped resource voids a member's pending ones when their membership ends. */
  approvals?: Approvals | undefined;
  /** The app's standing approvals: a TeamScoped resource ends a member's for its tools in that team when their membership ends. */
  standing?: StandingApprovals | undefined;
}

/** What `mountResource` built. */
export interface MountedResource {
  readonly Resource: Resource;
  /** The schema steps it applied (merge them into `Options.Schema` too, to apply them with the rest). */
  readonly Schema: readonly Step[];
  /**
   * The records, for application code: values as its tools give them (an amount a decimal string, a yes/no a boolean;
   * README "Values by kind"), in and out.
   */
  readonly Store: RecordStore;
  /** The tools it registered: `<name>_list`, `_read`, `_history` (ToolRead), `_create`, `_update`, `_delete` (ToolWrite), and `_attach` (ToolWrite) for a resource with File fields. */
  readonly Tools: readonly ToolDef[];
  /**
   * The records `person` reaches, for a job (README "Records from a job"): the person who started it, or the one the
   * application's scheduled work acts for (`Scheduled`, actor `agent:system`, `Actor.System`); else actor "human".
   * Each call is checked as that person's own request is (their records only; in `Team`, required for a TeamScoped
   * resource, as their role allows; values by the form's rules, given as a tool's arguments) and throws the refusal a
   * tool call gets (latch/agent `ERR_AGENT_INVALID_CALL` with the form's `status` and reason); nothing is written then.
   */
  For(
    person: string,
    options?: { readonly Team?: string; readonly Scheduled?: boolean },
  ): {
    list(query?: Partial<ListQuery>): ReturnType<RecordStore["list"]>;
    get(id: string): ReturnType<RecordStore["get"]>;
    create(values: Readonly<Record<string, string | number | boolean | null>>): { id: string; version: number };
    /** Changes the fields given of record `id`, read at `version` (its `updated_at` as `get` or `list` gave it); the outcome as `Store.update`'s. */
    update(id: string, version: number, values: Readonly<Record<string, string | number | boolean | null>>): UpdateOutcome;
    delete(id: string): boolean;
  };
}
