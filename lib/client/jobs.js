/*
 * latch jobs shim: progressive enhancement of a job status page (SPEC.md
 * §4.3, §6.1); loaded with <script src type=module>, no inline script (CSP
 * `script-src 'self'`).
 *
 * For each element carrying `data-poll` (the fragment path), it follows
 * `data-poll-push` (the events path) or polls the fragment every
 * `data-poll-every` seconds (stream.js): `update` refetches the fragment,
 * `done` goes to the event's `location`, `gone` reloads the page. A
 * fragment answer of 204 carries `Framework-Location`: the shim goes there.
 * A 401 or 404 reloads the page, which then shows the server's answer. The
 * no-script meta refresh is removed so the page does not also reload.
 */
import { follow } from "./stream.js";

const DEFAULT_POLL_SECONDS = 2;

for (const meta of document.querySelectorAll('meta[http-equiv="refresh" i]')) meta.remove();
for (const element of document.querySelectorAll("[data-poll]")) watch(element);

/** Follows one job container until the job is over. */
function watch(element) {
  const fragmentURL = element.getAttribute("data-poll");
  const job = follow({
    stream: element.getAttribute("data-poll-push"),
    seconds: element.getAttribute("data-poll-every"),
    fallback: DEFAULT_POLL_SECONDS,
    refresh,
    on: {
      update: () => void job.refresh(),
      done: (data) => finish(data?.location),
      gone: () => finish(null),
    },
  });

  function finish(target) {
    // A `done` event and an in-flight fragment fetch can both arrive: navigate once.
    if (job.stopped()) return;
    job.stop();
    if (typeof target === "string" && isSameOrigin(target)) location.assign(target);
    else location.reload();
  }

  async function refresh() {
    const res = await fetch(fragmentURL, { credentials: "same-origin", cache: "no-store", headers: { Accept: "text/html" } });
    if (res.status === 204) return finish(res.headers.get("Framework-Location"));
    if (res.status === 401 || res.status === 404) return finish(null);
    if (res.ok && !job.stopped()) element.innerHTML = await res.text();
  }
}

function isSameOrigin(target) {
  try {
    return new URL(target, location.href).origin === location.origin;
  } catch {
    return false;
  }
}
