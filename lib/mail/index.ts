/// <reference types="node" preserve="true" />
export { MAIL_ERROR_CODES, MailError, isMailError } from "./errors.ts";
export { newSMTPMailer } from "./smtp.ts";
export { DEFAULT_CONNECT_TIMEOUT, DEFAULT_COMMAND_TIMEOUT, DEFAULT_DATA_TIMEOUT } from "./smtp-options.ts";
export { newLogMailer, LOG_MAILER_WARNING } from "./log-mailer.ts";
export { buildMessage } from "./build.ts";
export { parseAddress } from "./address.ts";
export { DEFAULT_SMTP_PORT, DEFAULT_SMTPS_PORT } from "./url.ts";
export type { Message, Mailer } from "./types.ts";
export type { MailErrorCode, MailErrorOptions } from "./errors.ts";
export type { SMTPOptions } from "./smtp-options.ts";
export type { AuthMethod } from "./auth.ts";
export type { BuildOptions } from "./build.ts";
export type { Mailbox } from "./address.ts";
