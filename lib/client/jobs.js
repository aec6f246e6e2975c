/*
 * latch jobs shim: progressive enhancement of a job status page
 * (SPEC.md §4.3, §6.1). Served as a static file and loaded with
 * <script src type=module> (no inline script, so CSP `script-src 'self'`
 * holds); no dependencies.
 *
 * For each element carrying `data-poll` (the fragment path):
 * - with `data-poll-push` (the events path) and EventSource available, it
 *   follows the stream: `update` refetches the fragment, `done` goes to the
 *   event's `location`, `gone` reloads the page. If the stream fails before
 *   any event arrives, or fails MAX_STREAM_ERRORS times in a row, it is
 *   closed and the shim falls back to timer polling for good;
 * - otherwise it polls the fragment every `data-poll-every` seconds and
 *   swaps the response into the element.
 * A fragment answer of 204 carries `Framework-Location`: the shim goes
 * there. A 401 or 404 reloads the page, which then shows the server's answer.
 * The no-script meta refresh is removed so the page does not also reload.
 */
const MAX_STREAM_ERRORS = 3;
const DEFAULT_POLL_SECONDS = 2;

for (const meta of document.querySelectorAll('meta[http-equiv="refresh" i]')) meta.remove();
for (const element of document.querySelectorAll("[data-poll]")) watch(element);

/** Follows one job container until the job is over. */
function watch(element) {
  const fragmentURL = element.getAttribute("data-poll");
  const seconds = Number(element.getAttribute("data-poll-every"));
  const every = (Number.isFinite(seconds) && seconds > 0 ? seconds : DEFAULT_POLL_SECONDS) * 1000;
  const pushURL = element.getAttribute("data-poll-push");
  let timer = 0;
  let source = null;
  let busy = false;
  let again = false;
  let over = false;

  function finish(target) {
    // A `done` event and an in-flight fragment fetch can both arrive: navigate once.
    if (over) return;
    over = true;
    clearInterval(timer);
    if (source !== null) source.close();
    if (typeof target === "string" && isSameOrigin(target)) location.assign(target);
    else location.reload();
  }

  async function refresh() {
    if (over) return;
    if (busy) {
      again = true;
      return;
    }
    busy = true;
    try {
      const res = await fetch(fragmentURL, { credentials: "same-origin", cache: "no-store", headers: { Accept: "text/html" } });
      if (res.status === 204) return finish(res.headers.get("Framework-Location"));
      if (res.status === 401 || res.status === 404) return finish(null);
      if (res.ok && !over) element.innerHTML = await res.text();
    } catch {
      // A network hiccup: the next poll or event tries again.
    } finally {
      busy = false;
      if (again && !over) {
        again = false;
        void refresh();
      }
    }
  }

  function poll() {
    if (over || timer !== 0) return;
    timer = setInterval(refresh, every);
  }

  function stream() {
    let received = false;
    let errors = 0;
    source = new EventSource(pushURL);
    const heard = () => {
      received = true;
      errors = 0;
    };
    source.addEventListener("update", () => {
      heard();
      void refresh();
    });
    source.addEventListener("done", (event) => {
      heard();
      finish(readLocation(event.data));
    });
    source.addEventListener("gone", () => finish(null));
    source.addEventListener("error", () => {
      errors++;
      if (received && errors < MAX_STREAM_ERRORS && source.readyState !== EventSource.CLOSED) return;
      // SPEC.md §6.1: a failed stream falls back to timer polling permanently.
      source.close();
      source = null;
      poll();
    });
  }

  if (typeof pushURL === "string" && pushURL !== "" && typeof EventSource === "function") stream();
  else poll();
}

function readLocation(data) {
  try {
    const value = JSON.parse(data);
    return value !== null && typeof value === "object" && typeof value.location === "string" ? value.location : null;
  } catch {
    return null;
  }
}

function isSameOrigin(target) {
  try {
    return new URL(target, location.href).origin === location.origin;
  } catch {
    return false;
  }
}
