/*
 * What a search of a resource's list costs (issue 25 item 4): three people
 * with 10,000 records each, every record a title and two lines of notes
 * in one of four scripts (Latin, Cyrillic, Arabic, CJK); a first page of
 * one person's list searched for a word of three characters or more (the
 * trigram index), a two-character word (a scan of the index's text), and
 * a word with a filter and a sort. Prints the median and worst of 50 runs
 * per case in wall time; not a test (no threshold), run by hand:
 *
 *   node dist/scripts/bench-search.js
 */
import { applySchema, OpenDB } from "../lib/db/index.ts";
import { Kind, Resource, ScopeKind, StoreKind, resourceSchema } from "../lib/manifest/index.ts";
import { LIST_PAGE_SIZE } from "../lib/manifest/list.ts";
import { RecordTable, type ListQuery } from "../lib/manifest/table.ts";

const PEOPLE = 3;
const PER_PERSON = 10_000;
const RUNS = 50;

const notes = new Resource({
  Name: "notes",
  Route: "/notes",
  Store: StoreKind.Exclusive,
  Scope: ScopeKind.UserScoped,
  List: { Columns: [{ Field: "title" }], Filters: [{ Field: "amount" }] },
  Form: {
    Fields: [
      { Name: "title", Label: "notes.title", Kind: Kind.Text },
      { Name: "body", Label: "notes.body", Kind: Kind.Textarea },
      { Name: "amount", Label: "notes.amount", Kind: Kind.Money },
    ],
  },
});

const words = [
  ["harbour", "invoice", "lisbon", "meeting", "travel", "budget", "quarterly"],
  ["москва", "отчёт", "поездка", "встреча", "бюджет", "счёт"],
  ["القاهرة", "تقرير", "رحلة", "اجتماع", "ميزانية"],
  ["東京", "会議", "出張", "報告書", "予算", "北京"],
];

const db = OpenDB(":memory:");
applySchema(db, resourceSchema(notes));
const table = new RecordTable(db, notes);
let seed = 1;
const next = (n: number): number => {
  seed = (seed * 1103515245 + 12345) % 2 ** 31;
  return Math.floor(seed / 65_536) % n; // the high bits: the low ones of this generator cycle
};
const phrase = (): string => {
  const script = words[next(words.length)] ?? [];
  return Array.from({ length: 6 }, () => `${script[next(script.length)] ?? ""}${next(1000)}`).join(" ");
};
db.transaction(() => {
  for (let p = 0; p < PEOPLE; p++) {
    for (let i = 0; i < PER_PERSON; i++) {
      table.insert(`person-${p}`, {
        id: `${p}-${i}`,
        created_at: i,
        updated_at: i,
        values: { title: phrase(), body: `${phrase()}\n${phrase()}`, amount: next(30_000) },
      });
    }
  }
})();

function measure(name: string, query: Partial<ListQuery>): void {
  const full: ListQuery = { filters: [], search: [], sort: "created_at", desc: true, after: undefined, limit: LIST_PAGE_SIZE, ...query };
  const times: number[] = [];
  let found = 0;
  for (let run = 0; run < RUNS; run++) {
    const start = process.hrtime.bigint();
    found = table.list("person-1", full).records.length;
    times.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  times.sort((a, b) => a - b);
  const ms = (t: number | undefined): string => (t ?? 0).toFixed(2);
  console.log(`${name}: median ${ms(times[RUNS / 2])} ms, worst ${ms(times[RUNS - 1])} ms (${found} on the page)`);
}

console.log(`${PEOPLE} people × ${PER_PERSON} records, first page of ${LIST_PAGE_SIZE}`);
measure("no search", {});
measure('"harbour" (Latin, trigram)', { search: ["harbour"] });
measure('"поездка" (Cyrillic, trigram)', { search: ["поездка"] });
measure('"報告書" (CJK, trigram)', { search: ["報告書"] });
measure('"東京" (CJK, two characters: scan)', { search: ["東京"] });
measure('"harbour1" (rare word)', { search: ["harbour1"] });
measure('"lisbon budget" (two words)', { search: ["lisbon", "budget"] });
measure('"harbour", amount ≥ 150.00, sorted by title', {
  search: ["harbour"],
  filters: [{ field: "amount", min: 15_000, max: undefined }],
  sort: "title",
  desc: false,
});
