/*
 * `<name>_attach`, a write tool (so an MCP tool too) of a resource with File fields (README "Attachments"): an agent
 * attaches a file to one of a record's File fields, its bytes given as base64 (RFC 4648 §4) in `content_base64`, at most
 * ATTACH_TOOL_MAX_BYTES. Approved as any write: its dry run refuses what the run would (no such record, bytes of a type
 * the field does not accept, past the field's cap or the person's quota) before anyone is asked, and its approval page
 * shows the record, the field, the file's name, type and size (and the file it replaces). The bytes are checked, written
 * and recorded by the upload route's own path (files.ts `attachFile`, attachments.ts).
 */
import { AgentError, defineAction, ToolWrite, type ToolDef } from "../agent/index.ts";
import { unlessRefused } from "./preview.ts";
import type { HandlerFunc } from "../http/index.ts";
import { interpolate, LocaleFrom, T } from "../i18n/index.ts";
import { acceptedTypes, FileRefused, maxBytes, safeFileName, SNIFF_BYTES, sniffType, type Attachments } from "./attachments.ts";
import { callOwner, refusingWrite, toolWriter, type Label, type ToolCall } from "./calls.ts";
import { attachFile, fileFields, type AttachContext } from "./files.ts";
import { numberFormat } from "./intl.ts";
import { recordName } from "./references.ts";
import { noSuchRecord, refusedCall, type RequestScope } from "./scope.ts";
import type { Field, ResourceSpec } from "./spec.ts";
import { personOf } from "./store.ts";
import { idArg, teamArgs } from "./tools.ts";

/**
 * The largest file the attach tool takes: 45 KiB (46,080 bytes). Its base64 (61,440 characters) and the rest of a call
 * (the JSON-RPC envelope, the id, the field, a name of FILE_NAME_MAX_LENGTH characters) stay within the 64 KiB body the
 * tools endpoint and the MCP endpoint read (DEFAULT_BODY_LIMIT), and within the 64 KiB of arguments each pending
 * approval keeps (lib/agent MAX_PENDING_APPROVALS a token). A larger file goes through the upload route, streamed.
 */
export const ATTACH_TOOL_MAX_BYTES: number = 45 * 1024;

/** The base64 length of ATTACH_TOOL_MAX_BYTES bytes: the longest `content_base64` taken. */
export const ATTACH_TOOL_MAX_BASE64: number = 4 * Math.ceil(ATTACH_TOOL_MAX_BYTES / 3);

// RFC 4648 §4: the base64 alphabet, padded to a multiple of four characters.
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** What the attach tool needs of the resource's mount. */
export interface AttachToolParts extends AttachContext {
  readonly attachments: Attachments;
  readonly scope: RequestScope;
  readonly t: Label;
  /** The upload route's handler, which the tool is bound to. */
  readonly upload: HandlerFunc;
}

/** The call's field, file name and bytes, checked; throws the refusal (400, 413) naming the argument. */
function given(spec: ResourceSpec, call: Pick<ToolCall, "Args">): { field: Field; name: string; bytes: Buffer } {
  const what = `attach ${spec.Name}`;
  const field = fileFields(spec).find((f) => f.Name === call.Args.get("field"));
  if (field === undefined)
    throw refusedCall(
      400,
      `${what}: field is not one of ${fileFields(spec)
        .map((f) => f.Name)
        .join(", ")}`,
    );
  const content = String(call.Args.get("content_base64") ?? "");
  // OWASP ASVS 5.0 §5.2.1: the size is weighed before a byte is decoded.
  if (content.length > ATTACH_TOOL_MAX_BASE64)
    throw refusedCall(
      413,
      `${what}: content_base64 holds more than ${ATTACH_TOOL_MAX_BYTES} bytes; upload a larger file at ${spec.Route}/{id}/files/${field.Name}`,
    );
  const bytes = Buffer.from(content, "base64");
  // RFC 4648 §3.5: canonical base64 only (padding as §4 says, no stray bits), so one content has one hash to approve.
  if (!BASE64.test(content) || bytes.toString("base64") !== content)
    throw refusedCall(400, `${what}: content_base64 is not base64 (RFC 4648 §4, padded)`);
  return { field, name: String(call.Args.get("name") ?? ""), bytes };
}

// "128 bytes", "46.1 kB": bytes spelled out, larger sizes by their symbol (Intl units: SI, as the unit names say). Frozen
// constants: intl.ts keeps a formatter by its options object.
const SIZE_UNITS: Readonly<Record<"byte" | "kilobyte" | "megabyte", Intl.NumberFormatOptions>> = Object.freeze({
  byte: Object.freeze({ style: "unit", unit: "byte", unitDisplay: "long", maximumFractionDigits: 1 }),
  kilobyte: Object.freeze({ style: "unit", unit: "kilobyte", unitDisplay: "short", maximumFractionDigits: 1 }),
  megabyte: Object.freeze({ style: "unit", unit: "megabyte", unitDisplay: "short", maximumFractionDigits: 1 }),
});

/** A file as the approval page shows it: its name, media type and size in the request's locale. */
function described(req: Parameters<NonNullable<ToolDef["Preview"]>>[1], name: string, type: string, size: number): string {
  const unit = size < 1000 ? "byte" : size < 1000 * 1000 ? "kilobyte" : "megabyte";
  const amount = size / (unit === "byte" ? 1 : unit === "kilobyte" ? 1000 : 1000 * 1000);
  const shown = numberFormat(LocaleFrom(req), SIZE_UNITS[unit]).format(amount);
  return `${name} (${type}, ${shown})`;
}

/** `<name>_attach` of `spec` (one with File fields), bound to its upload route. */
export function attachTool(spec: ResourceSpec, parts: AttachToolParts): ToolDef {
  const { store, attachments, scope, t } = parts;
  const owner = (call: Pick<ToolCall, "Args" | "Subject">, action: "read" | "write"): string => callOwner(spec, scope, call, action);
  const record = (call: Pick<ToolCall, "Args" | "Subject">, action: "read" | "write") => {
    const found = store.get(owner(call, action), String(call.Args.get("id")));
    if (found === undefined) throw noSuchRecord(spec);
    return found;
  };
  const refusal = (field: Field, e: FileRefused): AgentError => refusedCall(e.status, `attach ${spec.Name}.${field.Name}: ${e.message}`);
  const names = fileFields(spec).map((f) => f.Name);
  const title = t(`${spec.Name}.title`);
  return defineAction({
    name: `${spec.Name}_attach`,
    method: "POST",
    route: `${spec.Route}/{id}/files/{field}`,
    handler: parts.upload,
    tool: {
      Description: `Attaches a file to a File field of one of the person's ${title}, replacing the file there: "content_base64" holds its bytes as base64, at most ${ATTACH_TOOL_MAX_BYTES} bytes (and the field's own cap), of a type the field accepts (recognised by the bytes, not the name); "name" is the file's name.`,
      Access: ToolWrite,
      Confirm: interpolate(t("resource.file.confirm"), { resource: title }),
      Args: [
        ...teamArgs(spec),
        idArg(spec),
        { Name: "field", Type: "string", Required: true, Enum: names, Description: `The File field: one of ${names.join(", ")}` },
        { Name: "name", Type: "string", Required: true, Description: "The file's name, e.g. receipt.pdf" },
        {
          Name: "content_base64",
          Type: "string",
          Required: true,
          Description: `The file's bytes, base64 (RFC 4648 §4, padded), at most ${ATTACH_TOOL_MAX_BASE64} characters`,
        },
      ],
    },
    // The dry run: the checks `attachFile` makes, on the bytes given, writing nothing.
    check: (call) => {
      const { field, bytes } = given(spec, call);
      record(call, "write");
      try {
        attachments.refuseEarly(bytes, acceptedTypes(field), maxBytes(field), personOf(toolWriter(spec, scope, call)));
      } catch (e) {
        throw e instanceof FileRefused ? refusal(field, e) : e;
      }
    },
    preview: unlessRefused((call, req) => {
      const found = record(call, "read");
      const { field, name, bytes } = given(spec, call);
      const type = sniffType(bytes.subarray(0, SNIFF_BYTES)) ?? "application/octet-stream";
      const held = found.record.values[field.Name];
      const before = typeof held === "string" ? attachments.find(spec.Name, found.record.id, field.Name, held) : undefined;
      return {
        Kind: "update",
        Title: recordName(spec, found.record.id, found.record.values),
        Fields: [
          {
            Field: field.Name,
            Label: T(req, field.Label),
            Value: described(req, safeFileName(name, type), type, bytes.length),
            Before: before === undefined ? "" : described(req, before.name, before.type, before.size),
          },
        ],
        Unchanged: [],
        Stale: false,
        ReferredBy: [],
      };
    }),
    target: (args) => ({ Record: String(args.get("id")), Fields: [String(args.get("field"))], Context: String(args.get("team") ?? "") }),
    run: async (call) => {
      const { field, name, bytes } = given(spec, call);
      const who = toolWriter(spec, scope, call);
      const found = record(call, "write");
      const target = { id: found.record.id, version: found.version, field };
      let outcome;
      try {
        outcome = await attachFile(parts, who, target, [bytes], name, bytes.length);
      } catch (e) {
        if (e instanceof FileRefused) throw refusal(field, e);
        // As every write tool: a reference or rule refusal worded as the form's.
        return refusingWrite(spec, t, () => {
          throw e;
        });
      }
      if (outcome === "missing") throw noSuchRecord(spec);
      if (outcome === "changed") throw refusedCall(409, `attach ${spec.Name}.${field.Name}: the record changed meanwhile; call again`);
      const { attachment } = outcome;
      return {
        id: target.id,
        version: outcome.version,
        field: field.Name,
        file: { id: attachment.id, name: attachment.name, type: attachment.type, size: attachment.size, sha256: attachment.sha256 },
      };
    },
  });
}
