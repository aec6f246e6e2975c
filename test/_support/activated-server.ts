/*
 * Child process for the systemd-activation test: serves on whatever
 * `Serve` picks with neither Socket nor Addr set (fd 3 when LISTEN_FDS is
 * set), answering "activated" to every request. Logs JSON to stderr.
 */
import { Serve } from "../../lib/index.ts";

await Serve({
  Mux: (_req, res) => {
    res.end("activated");
  },
});
