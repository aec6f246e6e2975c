/*
 * latch stream-or-poll: how a page follows what changes on the server
 * (SPEC.md §6.1), shared by jobs.js and live.js, which import it (the
 * assets module points `./stream.js` at its fingerprinted name). No
 * dependencies; the page stays correct without it.
 *
 * With a stream URL and EventSource available, it follows the stream: the
 * browser reconnects after the server's `retry:` delay on its own. If the
 * stream fails before it opens (a 429: too many open; a blocked route), or
 * fails MAX_STREAM_ERRORS times in a row, it is closed and the page is
 * refreshed on a timer instead, for good. Refreshes never overlap: one
 * asked for while another runs follows it once.
 */
const MAX_STREAM_ERRORS = 3;

/**
 * Follows a server's changes. `refresh` fetches and shows the current
 * state; `on` maps the stream's event names to their handlers; `state`,
 * when given, is told "streaming" once the stream opens and "polling" at
 * the fallback. Returns `refresh` (coalesced), `stop` and `stopped`.
 */
export function follow({ stream, every, refresh, on, state }) {
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
    for (const [name, handle] of Object.entries(on)) source.addEventListener(name, handle);
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

/** The polling interval in ms: the attribute's seconds when positive, else `fallback` seconds. */
export function everyMs(attribute, fallback) {
  const seconds = Number(attribute);
  return (Number.isFinite(seconds) && seconds > 0 ? seconds : fallback) * 1000;
}

/** An event's JSON data as an object, or null. */
export function eventData(event) {
  try {
    const value = JSON.parse(event.data);
    return value !== null && typeof value === "object" ? value : null;
  } catch {
    return null;
  }
}
