/// <reference types="node" preserve="true" />
export { create, Teams } from "./teams.ts";
export { ROLES, may } from "./roles.ts";
export { INVITATION_TTL, INVITE_LIMITS } from "./invitations.ts";
export { MAX_TEAM_NAME } from "./context.ts";
export { Schema } from "./schema.ts";
export { accountRows } from "./account-rows.ts";
export { isTeamsError } from "./errors.ts";
export type { Config, Invitation, InviteLimits, Refusal } from "./config.ts";
export type { Role, TeamAction } from "./roles.ts";
export type { TeamView } from "./teams.ts";
export type { TeamSummary, Member, MembershipEnded } from "./store.ts";
export type { PendingInvitation } from "./invitations.ts";
// Named by the signatures above (issue 42: a public signature names only public types).
// TeamsError as a type only: the narrowing of isTeamsError, not a class to test with instanceof.
export type { TeamsError } from "./errors.ts";
export { TEAMS_ERROR_CODES } from "./errors.ts";
export type { TeamsErrorCode } from "./errors.ts";
