/// <reference types="node" preserve="true" />
export { Icon, IconSlugs } from "./icon.ts";
