/*
 * Where the starter's stylesheet and catalogs are at run time. tsc
 * compiles `<project>/starter/files.ts` to `<project>/dist/starter/files.js`
 * (rootDir the project, outDir `dist`) and copies neither CSS nor JSON, so
 * they are read next to the sources: the compiled directory without its
 * `dist` segment. Move them elsewhere and change these two paths.
 */
import { join, sep } from "node:path";
import { fileURLToPath } from "node:url";

const compiled = fileURLToPath(new URL(".", import.meta.url));
const at = compiled.lastIndexOf(`${sep}dist${sep}`);
const source = at < 0 ? compiled : compiled.slice(0, at) + compiled.slice(at + `${sep}dist`.length);

/** The starter's static files (the stylesheet), for `NewAssets`. */
export const STATIC_DIR: string = join(source, "static");

/** The starter's catalogs, for `Options.LocaleFS`. */
export const LOCALES_DIR: string = join(source, "locales");
