/*
 * latch jobs shim (SPEC.md §4.3, §6.1; lib/client/README.md): each
 * `data-poll` element follows its job's stream or polls the fragment
 * (stream.js). A 401 or 404 reloads the page, which then shows the server's
 * answer; the no-script meta refresh is removed so the page does not also reload.
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
