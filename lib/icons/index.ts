export { Icon, IconSlugs } from "./icon.ts";
