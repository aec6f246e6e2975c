/// <reference types="node" preserve="true" />
export { MailError, isMailError } from "./errors.ts";
export { newSMTPMailer } from "./smtp.ts";
export { newLogMailer } from "./log-mailer.ts";
export type { Message, Mailer } from "./types.ts";
export type { SMTPOptions } from "./smtp-options.ts";
export type { AuthMethod } from "./auth.ts";
