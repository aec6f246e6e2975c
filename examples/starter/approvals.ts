/*
 * The approvals list and what follows it, mounted in one call: `GET /account/approvals` (every call awaiting the
 * person, pages/approval-list.ts), `POST /account/approvals` (the checked `id`s approved or declined at once, each
 * through `Approvals.decideAll`: single-use, bound to its own arguments, its own audit event; a stale call, whose record
 * changed since the agent read it, is not approved, as on its own page), and
 * `GET /account/approvals/waiting` (the count of waiting calls every signed-in page shows and polls: layout.ts
 * `showWaiting`). The single request's page (`/account/approvals/{id}`) stays the application's. The demo and step 7
 * of docs/guide.md mount it.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { isAgentError, MAX_BATCH_DECISIONS, type Approval, type Approvals } from "latch/agent";
import type { Assets } from "latch/assets";
import { readForm } from "latch/http";
import type { Group } from "latch/router";
import { From } from "latch/signin";
import { approvalListPage, type BatchResult } from "./pages/approval-list.ts";
import { approvable, type ApprovalView } from "./pages/approvals.ts";
import { showWaiting, waitingLink } from "./pages/layout.ts";
import type { Shell } from "./pages/teams.ts";

/** Where the approvals list mounts, and what it renders with. */
export interface ApprovalListDeps {
  /** Routes behind RequireFreshSession: deciding is sensitive. */
  fresh: Group;
  /** Routes behind LoadSession: the count answers 401 itself without a session (a redirect would land in the page). */
  user: Group;
  approvals: Approvals;
  /** A request as the page shows it (who asks, the tool's confirm sentence, what the call would do: `previewOf`). */
  view: (req: IncomingMessage, approval: Approval) => ApprovalView;
  assets: Assets;
  /** The application's layout. */
  shell: Shell;
}

/** Mounts the approvals list, the batch decision and the waiting count (the file's header lists them). */
export function mountApprovalList({ fresh, user, approvals, view, assets, shell }: ApprovalListDeps): void {
  const subject = (req: IncomingMessage): string => From(req)?.Subject ?? "";
  showWaiting(assets, (person) => approvals.waiting(person));
  const list = (req: IncomingMessage, res: ServerResponse, result?: BatchResult): void =>
    approvalListPage(
      req,
      res,
      assets,
      shell,
      approvals.pending(subject(req)).map((a) => view(req, a)),
      new Date(),
      result,
    );
  fresh.Handle("GET /account/approvals", (req, res) => list(req, res));
  fresh.Handle("POST /account/approvals", async (req, res) => {
    const form = await readForm(req);
    const decision = form.get("decision") ?? "";
    const who = subject(req);
    // A stale call has nothing to approve (its tool would refuse it), as on its own page: left waiting, said so. Looked
    // for only within the batch's bound, which decideAll refuses past.
    const ids = form.getAll("id");
    const isStale = (id: string): boolean => {
      const approval = decision === "approve" ? approvals.get(id, who) : undefined;
      return approval !== undefined && !approvable(view(req, approval).preview);
    };
    const stale = new Set(ids.length <= MAX_BATCH_DECISIONS ? ids.filter(isStale) : []);
    const rest = ids.filter((id) => !stale.has(id));
    let decided;
    try {
      decided = rest.length === 0 && stale.size > 0 ? new Map() : approvals.decideAll(rest, who, decision);
    } catch (err) {
      // No id, too many, or an unknown decision: the page again with the reason naming the field, nothing decided.
      if (!isAgentError(err) || err.status !== 400) throw err;
      return list(req, res, { error: err.message });
    }
    const tool = (id: string): string => approvals.get(id, who)?.Tool ?? id;
    const refused = [
      ...[...decided].flatMap(([id, outcome]) =>
        outcome.ok ? [] : [{ label: outcome.reason === "unknown" ? id : tool(id), reason: outcome.reason }],
      ),
      ...[...stale].map((id) => ({ label: tool(id), reason: "stale" as const })),
    ];
    const done = [...decided.values()].filter((outcome) => outcome.ok).length;
    list(req, res, { decision: decision === "approve" ? "approve" : "decline", done, refused });
  });
  user.Handle("GET /account/approvals/waiting", (req, res) => {
    res.setHeader("Cache-Control", "no-store");
    if (From(req) === undefined) {
      res.writeHead(401, { "Content-Type": "text/plain; charset=utf-8" }).end("401 unauthorized: sign in first");
      return;
    }
    res.setHeader("Content-Type", "text/html; charset=utf-8");
    res.end(waitingLink(req, approvals.waiting(subject(req))).toString());
  });
}
