/*
 * How a job reports a fraction (lib/jobs/README.md#progress): a `Progress`
 * text starting with "n/m" or "p%" shows a <progress> bar named by the
 * status and the job, beside the text; any other text shows the text alone.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { renderFragmentHTML, Status, type Job, type PageData } from "../../lib/jobs/index.ts";

function fragment(progress: string, status: Status = Status.Running): string {
  const job: Job = {
    ID: "j1",
    Owner: "alice",
    Name: "export",
    Status: status,
    Progress: progress,
    Err: "",
    Location: "",
    StartedAt: new Date(0),
    FinishedAt: undefined,
  };
  const data: PageData = { Job: job, FragmentPath: "/jobs/j1/fragment", EventsPath: "/jobs/j1/events", PollSeconds: 2 };
  return renderFragmentHTML(data).toString();
}

const bar = (html: string): string | undefined => /<progress[^>]*>/.exec(html)?.[0];

describe("lib/jobs progress bar", () => {
  it("shows a named bar for a text starting with n/m or p%, the text beside it", () => {
    for (const [text, value] of [
      ["3/10", 30],
      ["3/10 rows", 30],
      [" 1 / 3 files", 33],
      ["0/5", 0],
      ["5/5 done", 100],
      ["40%", 40],
      ["12.6% uploaded", 13],
      ["100 % done", 100],
    ] as const) {
      const html = fragment(text);
      assert.equal(bar(html), `<progress max="100" value="${value}" aria-label="Running export">`, text);
      assert.ok(html.includes(`<span class="job-progress">${text}</span>`), text);
    }
  });

  it("shows the text alone when it does not start with a fraction", () => {
    for (const text of ["preparing", "", "rows 3/10", "compressed to 40%", "6/5", "3/0", "101%", "2024/11/26", "1e3%"]) {
      assert.equal(bar(fragment(text)), undefined, JSON.stringify(text));
    }
  });

  it("names the bar in the caller's words, escaped", () => {
    const data: PageData = {
      Job: {
        ...{ ID: "j", Owner: "o", Name: "a<b", Status: Status.Running, Progress: "1/2", Err: "", Location: "" },
        StartedAt: new Date(0),
        FinishedAt: undefined,
      },
      FragmentPath: "/f",
      EventsPath: "/e",
      PollSeconds: 2,
    };
    const html = renderFragmentHTML(data, { running: "جارٍ العمل…", done: "d", failed: "f" }).toString();
    assert.equal(bar(html), `<progress max="100" value="50" aria-label="جارٍ العمل… a&lt;b">`);
  });
});
