/*
 * latch stream-or-poll (SPEC.md §6.1), imported by jobs.js and live.js: a
 * stream that fails before it opens (a 429, a blocked route) or
 * MAX_STREAM_ERRORS times in a row is closed, and the page refreshed on a
 * timer instead, for good. Refreshes never overlap.
 */
const MAX_STREAM_ERRORS = 3;

/**
 * Follows a server's changes: `refresh` shows the current state (every
 * `seconds`, else `fallback`, when polling); `on` maps event names to
 * handlers of their JSON data (or null); `state` hears "streaming" and
 * "polling". Returns `refresh` (coalesced), `stop` and `stopped`.
 */
export function follow({ stream, seconds, fallback, refresh, on, state }) {
  const given = Number(seconds);
  const every = (Number.isFinite(given) && given > 0 ? given : fallback) * 1000;
  let timer = 0;
  let source = null;
  let busy = false;
  let again = false;
  let over = false;

  function stop() {
    over = true;
    clearInterval(timer);
    if (source !== null) source.close();
  }

  async function update() {
    if (over) return;
    if (busy) {
      again = true;
      return;
    }
    busy = true;
    try {
      await refresh();
    } catch {
      // A network hiccup: the next event or poll tries again.
    } finally {
      busy = false;
      if (again && !over) {
        again = false;
        void update();
      }
    }
  }

  function poll() {
    if (over || timer !== 0) return;
    state?.("polling");
    timer = setInterval(update, every);
  }

  function listen() {
    let opened = false;
    let errors = 0;
    source = new EventSource(stream);
    source.addEventListener("open", () => {
      opened = true;
      errors = 0;
      state?.("streaming");
    });
    for (const [name, handle] of Object.entries(on)) source.addEventListener(name, (event) => handle(eventData(event)));
    source.addEventListener("error", () => {
      errors++;
      if (opened && errors < MAX_STREAM_ERRORS && source.readyState !== EventSource.CLOSED) return;
      // SPEC.md §6.1: a failed stream falls back to timer polling permanently.
      source.close();
      source = null;
      poll();
    });
  }

  if (typeof stream === "string" && stream !== "" && typeof EventSource === "function") listen();
  else poll();
  return { refresh: update, stop, stopped: () => over };
}

/** An event's JSON data as an object, or null. */
function eventData(event) {
  try {
    const value = JSON.parse(event.data);
    return value !== null && typeof value === "object" ? value : null;
  } catch {
    return null;
  }
}
