/*
 * Records from a job (README "Records from a job"): what code running outside a request (a job a person started, the
 * application's scheduled work) reads and changes of a resource, for one named person, checked as that person's own call
 * is: the owner scope and the team role (scope.ts, the one home of both), the form's value rules and the references
 * (calls.ts, which the tools use too), and every change attributed: actor "human" for a person's job, `Actor.System` ("agent:system") for
 * scheduled work, the person its events' Subject either way.
 */
import { Actor, humanActor } from "../agent/index.ts";
import type { MountedResource } from "./mount-config.ts";
import { isTeamScoped, reachedOwner, refusedCall, type RequestScope } from "./scope.ts";
import type { ResourceSpec } from "./spec.ts";
import type { RecordStore } from "./store.ts";
import { shownOutcome } from "./app-store.ts";
import { callWriter, checkedValues, refusingWrite, wording } from "./calls.ts";

/** What a job passes as a record's values: as a tool's arguments (an amount as "12.50" or 12.5, a yes/no as a boolean). */
type JobValues = Readonly<Record<string, string | number | boolean | null>>;

/**
 * Returns `MountedResource.For` of `spec` over `store`, reading through `shown` (app-store.ts: the tools' values, as
 * `MountedResource.Store` gives them); `label` words a field's problem (MountOptions.label).
 */
export function actingFor(
  spec: ResourceSpec,
  store: RecordStore,
  shown: RecordStore,
  scope: RequestScope,
  label?: (key: string) => string,
): MountedResource["For"] {
  const t = wording(label);
  const declared = new Set(spec.Form.Fields.map((f) => f.Name));
  // A misspelt field would be dropped silently by the form's rules (they read declared fields only): refused by name.
  const values = (given: JobValues, partial: boolean) => {
    const unknown = Object.keys(given).find((name) => !declared.has(name));
    if (unknown !== undefined) throw refusedCall(400, `${spec.Name}: no field ${JSON.stringify(unknown)}`);
    return checkedValues(spec, t, new Map(Object.entries(given)), partial);
  };
  return (person, options = {}) => {
    if (typeof person !== "string" || person === "") {
      throw refusedCall(400, `${spec.Name}: a job acts for a person (the one who started it, or whom the scheduled work is for)`);
    }
    const team = options.Team ?? "";
    if (isTeamScoped(spec) && team === "") throw refusedCall(400, `${spec.Name}: a team's records are reached in a team: pass { Team }`);
    // SPEC §2.3, §6.2: the audit form is "human" or "agent:<name>"; work no person started is the application's agent.
    const actor = options.Scheduled === true ? Actor.System : humanActor();
    const owner = (action: "read" | "write"): string => reachedOwner(spec, scope, person, team, action);
    const writer = () => callWriter(spec, scope, { subject: person, team, actor });
    return Object.freeze({
      list: (query) => shown.list(owner("read"), query),
      get: (id) => shown.get(owner("read"), id),
      create: (given) => {
        const who = writer();
        return refusingWrite(spec, t, () => store.create(who, values(given, false)));
      },
      update: (id, version, given) => {
        const who = writer();
        // Its stale or conflicting record comes back as the reads give it (the tools' values), so it can be written back.
        return shownOutcome(
          spec,
          refusingWrite(spec, t, () => store.update(who, id, version, values(given, true))),
        );
      },
      delete: (id) => {
        const who = writer();
        return refusingWrite(spec, t, () => store.delete(who, id));
      },
    });
  };
}
