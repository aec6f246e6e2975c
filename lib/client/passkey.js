/*
 * latch passkey client (lib/client/README.md): wires every element carrying
 * `data-passkey` to the ceremony routes (SPEC.md §4.2). Its fetches are
 * same-origin, so the browser adds the Sec-Fetch-Site and Origin headers
 * the CSRF protection checks; loaded with <script src type=module>, no
 * inline script (CSP `script-src 'self'`).
 */
for (const element of document.querySelectorAll("[data-passkey]")) {
  element.addEventListener("click", (event) => {
    event.preventDefault();
    void run(event.currentTarget);
  });
  element.hidden = false;
}

/** One ceremony: the options from `data-begin`, the browser's credential to `data-finish`, then on to `data-next` or the answer's location. */
async function run(element) {
  if (!window.PublicKeyCredential || !navigator.credentials) {
    say(element, element.getAttribute("data-msg-unsupported") || "Passkeys are not supported here.");
    return;
  }
  element.disabled = true;
  say(element, "");
  try {
    const options = await post(element.getAttribute("data-begin"));
    const credential =
      element.getAttribute("data-passkey") === "register"
        ? await navigator.credentials.create({ publicKey: creationOptions(options) })
        : await navigator.credentials.get({ publicKey: requestOptions(options) });
    if (!credential) throw new Error("no credential");
    const data = await post(element.getAttribute("data-finish"), credentialJSON(credential));
    go(element.getAttribute("data-next") || data?.location);
  } catch (err) {
    // A stale session may not register a passkey: go confirm identity first when the page says where.
    if (err?.code === "stale_session" && element.getAttribute("data-stale")) return go(element.getAttribute("data-stale"));
    element.disabled = false;
    const cancelled = err?.name === "NotAllowedError" || err?.name === "AbortError";
    say(element, element.getAttribute(cancelled ? "data-msg-cancelled" : "data-msg-failed") || String(err));
  }
}

/** POSTs `body` as JSON and returns the JSON answer; an error status throws, with the answer's `error` as its code. */
async function post(url, body = {}) {
  const res = await fetch(url, {
    method: "POST",
    credentials: "same-origin",
    headers: { "Content-Type": "application/json", Accept: "application/json" },
    body: JSON.stringify(body),
  });
  const data = await res.json().catch(() => ({}));
  if (!res.ok) throw Object.assign(new Error(data.error || "HTTP " + res.status), { status: res.status, code: data.error });
  return data;
}

// The options' binary fields travel as base64url; WebAuthn takes them as buffers (atob accepts the missing padding).
function toBuffer(b64url) {
  return Uint8Array.from(atob(String(b64url).replace(/-/g, "+").replace(/_/g, "/")), (c) => c.charCodeAt(0)).buffer;
}

function toBase64url(buffer) {
  const binary = Array.from(new Uint8Array(buffer), (byte) => String.fromCharCode(byte)).join("");
  return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

function withBuffers(list) {
  return (list || []).map((c) => ({ type: c.type, id: toBuffer(c.id), transports: c.transports }));
}

function creationOptions(json) {
  return {
    ...json,
    challenge: toBuffer(json.challenge),
    user: { ...json.user, id: toBuffer(json.user.id) },
    excludeCredentials: withBuffers(json.excludeCredentials),
  };
}

function requestOptions(json) {
  return { ...json, challenge: toBuffer(json.challenge), allowCredentials: withBuffers(json.allowCredentials) };
}

/** The credential in the JSON shape of PublicKeyCredential.toJSON(). */
function credentialJSON(cred) {
  const r = cred.response;
  const response = { clientDataJSON: toBase64url(r.clientDataJSON) };
  if (r.attestationObject) {
    response.attestationObject = toBase64url(r.attestationObject);
    response.transports = typeof r.getTransports === "function" ? r.getTransports() : [];
  } else {
    response.authenticatorData = toBase64url(r.authenticatorData);
    response.signature = toBase64url(r.signature);
    if (r.userHandle?.byteLength) response.userHandle = toBase64url(r.userHandle);
  }
  return {
    id: cred.id,
    rawId: toBase64url(cred.rawId),
    type: cred.type,
    authenticatorAttachment: cred.authenticatorAttachment || undefined,
    clientExtensionResults: typeof cred.getClientExtensionResults === "function" ? cred.getClientExtensionResults() : {},
    response,
  };
}

/** Shows `text` in the `[data-passkey-status]` of the element's own section, else the page's first, else an alert. */
function say(element, text) {
  const status = element.closest("section")?.querySelector("[data-passkey-status]") || document.querySelector("[data-passkey-status]");
  if (status) status.textContent = text;
  else if (text) window.alert(text);
}

// Only same-origin destinations are followed (a data-next or location
// pointing elsewhere would be an open redirect); anything else reloads.
function go(target) {
  let url = null;
  try {
    if (typeof target === "string" && target !== "") url = new URL(target, window.location.href);
  } catch {
    url = null;
  }
  if (url && url.origin === window.location.origin) window.location.assign(url.href);
  else window.location.reload();
}
