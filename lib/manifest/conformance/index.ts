export { describeResourceConformance } from "./suite.ts";
export type { ConformanceApp } from "./suite.ts";
