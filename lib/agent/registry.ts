/* The tools an application offers to agents; registration is a startup step, so a clash fails at once, naming both. */
import { defineAction, type ToolDef } from "./action.ts";
import { AgentError } from "./errors.ts";

/**
 * A set of `ToolDef`s with unique names and unique method+route pairs.
 *
 * @example
 * const tools = new ToolRegistry();
 * tools.register(defineAction({ ... }));
 * for (const def of tools.list()) describeToAgent(def);
 */
export class ToolRegistry {
  #byName = new Map<string, ToolDef>();
  #byRoute = new Map<string, ToolDef>();
  #byRecords = new Map<string, ToolDef>();

  /**
   * Adds `def`, after checking it again as `defineAction` would. Throws `AgentError` `ERR_AGENT_DUPLICATE_TOOL` when
   * its name, its method and route, or its collection's role (`Records`) are taken, and `defineAction`'s errors for an
   * invalid entry.
   */
  register(def: ToolDef): void {
    const checked = defineAction({
      name: def.Name,
      method: def.Method,
      route: def.Route,
      tool: def.Tool,
      handler: def.Handler,
      run: def.Run,
      check: def.Check,
      preview: def.Preview,
      target: def.Target,
      records: def.Records,
    });
    const route = `${checked.Method} ${checked.Route}`;
    if (this.#byName.has(checked.Name)) {
      throw new AgentError("ERR_AGENT_DUPLICATE_TOOL", `register tool: ${checked.Name} is already registered`);
    }
    const other = this.#byRoute.get(route);
    if (other !== undefined) {
      throw new AgentError("ERR_AGENT_DUPLICATE_TOOL", `register tool: ${checked.Name} and ${other.Name} both use ${route}`);
    }
    const records = checked.Records === undefined ? undefined : `${checked.Records.Role} ${checked.Records.Collection}`;
    const reader = records === undefined ? undefined : this.#byRecords.get(records);
    if (reader !== undefined) {
      throw new AgentError("ERR_AGENT_DUPLICATE_TOOL", `register tool: ${checked.Name} and ${reader.Name} both ${records}`);
    }
    this.#byName.set(checked.Name, checked);
    this.#byRoute.set(route, checked);
    if (records !== undefined) this.#byRecords.set(records, checked);
  }

  /** Returns the entry named `name`, or `undefined`. */
  get(name: string): ToolDef | undefined {
    return this.#byName.get(name);
  }

  /** Returns every entry, sorted by name. */
  list(): ToolDef[] {
    return [...this.#byName.values()].sort((a, b) => (a.Name < b.Name ? -1 : a.Name > b.Name ? 1 : 0));
  }
}
