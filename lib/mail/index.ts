/// <reference types="node" preserve="true" />
export { MailError, isMailError } from "./errors.ts";
export { newSMTPMailer } from "./smtp.ts";
export { newLogMailer } from "./log-mailer.ts";
export type { Message, Mailer } from "./types.ts";
export type { SMTPOptions } from "./smtp-options.ts";
export type { AuthMethod } from "./auth.ts";
// Named by the signatures above (issue 42: a public signature names only public types).
export type { MailErrorCode, MailErrorOptions } from "./errors.ts";
export { MAIL_ERROR_CODES } from "./errors.ts";
