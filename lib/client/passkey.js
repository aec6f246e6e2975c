// latch passkey client. Served as a static asset (CSP script-src 'self'),
// no dependencies. It wires every element carrying `data-passkey`:
//
//   <button data-passkey="register|stepup|signin"
//           data-begin="/passkey/register/begin"
//           data-finish="/passkey/register/finish"
//           data-msg-unsupported="..." data-msg-cancelled="..." data-msg-failed="..."
//           [data-next="/after"] [data-stale="/stepup?next=/account"]>
//   <p data-passkey-status role="alert"></p>
//
// A click POSTs to data-begin (same-origin fetch: the browser adds the
// Sec-Fetch-Site and Origin headers the CSRF protection checks), turns the
// JSON options into WebAuthn options (base64url → ArrayBuffer), calls
// navigator.credentials.create or .get, and POSTs the credential in the
// JSON shape of PublicKeyCredential.toJSON() to data-finish. The finish
// route answers {"location": "..."}; the page goes to data-next, else that
// location, when it is same-origin, and reloads otherwise. Messages go to
// the [data-passkey-status] of the button's <section>, else the page's first.
"use strict";
(function () {
  function toBuffer(b64url) {
    var b64 = String(b64url).replace(/-/g, "+").replace(/_/g, "/");
    while (b64.length % 4) b64 += "=";
    var bin = atob(b64);
    var out = new Uint8Array(bin.length);
    for (var i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
    return out.buffer;
  }

  function toBase64url(buffer) {
    var bytes = new Uint8Array(buffer);
    var bin = "";
    for (var i = 0; i < bytes.length; i++) bin += String.fromCharCode(bytes[i]);
    return btoa(bin).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
  }

  function withBuffers(list) {
    return (list || []).map(function (c) {
      return { type: c.type, id: toBuffer(c.id), transports: c.transports };
    });
  }

  function creationOptions(json) {
    var o = Object.assign({}, json);
    o.challenge = toBuffer(json.challenge);
    o.user = Object.assign({}, json.user, { id: toBuffer(json.user.id) });
    o.excludeCredentials = withBuffers(json.excludeCredentials);
    return o;
  }

  function requestOptions(json) {
    var o = Object.assign({}, json);
    o.challenge = toBuffer(json.challenge);
    o.allowCredentials = withBuffers(json.allowCredentials);
    return o;
  }

  function credentialJSON(cred) {
    var r = cred.response;
    var response = { clientDataJSON: toBase64url(r.clientDataJSON) };
    if (r.attestationObject) {
      response.attestationObject = toBase64url(r.attestationObject);
      response.transports = typeof r.getTransports === "function" ? r.getTransports() : [];
    } else {
      response.authenticatorData = toBase64url(r.authenticatorData);
      response.signature = toBase64url(r.signature);
      if (r.userHandle && r.userHandle.byteLength) response.userHandle = toBase64url(r.userHandle);
    }
    return {
      id: cred.id,
      rawId: toBase64url(cred.rawId),
      type: cred.type,
      authenticatorAttachment: cred.authenticatorAttachment || undefined,
      clientExtensionResults: typeof cred.getClientExtensionResults === "function" ? cred.getClientExtensionResults() : {},
      response: response,
    };
  }

  function post(url, body) {
    return fetch(url, {
      method: "POST",
      credentials: "same-origin",
      headers: { "Content-Type": "application/json", Accept: "application/json" },
      body: JSON.stringify(body || {}),
    }).then(function (res) {
      return res
        .json()
        .catch(function () {
          return {};
        })
        .then(function (data) {
          if (!res.ok) throw Object.assign(new Error(data.error || "HTTP " + res.status), { status: res.status, code: data.error });
          return data;
        });
    });
  }

  // The status element of the button's own section, else the page's first one.
  function statusFor(el) {
    var section = el.closest("section");
    var near = section ? section.querySelector("[data-passkey-status]") : null;
    return near || document.querySelector("[data-passkey-status]");
  }

  function say(el, text) {
    var status = statusFor(el);
    if (status) status.textContent = text;
    else if (text) window.alert(text);
  }

  // Only same-origin destinations are followed (a data-next or location
  // pointing elsewhere would be an open redirect); anything else reloads.
  function go(target) {
    var url = null;
    try {
      if (typeof target === "string" && target !== "") url = new URL(target, window.location.href);
    } catch (e) {
      url = null;
    }
    if (url && url.origin === window.location.origin) window.location.assign(url.href);
    else window.location.reload();
  }

  function run(el) {
    var kind = el.getAttribute("data-passkey");
    if (!window.PublicKeyCredential || !navigator.credentials) {
      say(el, el.getAttribute("data-msg-unsupported") || "Passkeys are not supported here.");
      return;
    }
    el.disabled = true;
    say(el, "");
    post(el.getAttribute("data-begin"))
      .then(function (options) {
        return kind === "register"
          ? navigator.credentials.create({ publicKey: creationOptions(options) })
          : navigator.credentials.get({ publicKey: requestOptions(options) });
      })
      .then(function (cred) {
        if (!cred) throw new Error("no credential");
        return post(el.getAttribute("data-finish"), credentialJSON(cred));
      })
      .then(function (data) {
        go(el.getAttribute("data-next") || (data && data.location));
      })
      .catch(function (err) {
        // A stale session may not register a passkey: go confirm identity first when the page says where.
        if (err && err.code === "stale_session" && el.getAttribute("data-stale")) return go(el.getAttribute("data-stale"));
        el.disabled = false;
        var cancelled = err && (err.name === "NotAllowedError" || err.name === "AbortError");
        say(el, el.getAttribute(cancelled ? "data-msg-cancelled" : "data-msg-failed") || String(err));
      });
  }

  function init() {
    var els = document.querySelectorAll("[data-passkey]");
    for (var i = 0; i < els.length; i++) {
      els[i].addEventListener("click", function (ev) {
        ev.preventDefault();
        run(ev.currentTarget);
      });
      els[i].hidden = false;
    }
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", init);
  else init();
})();
