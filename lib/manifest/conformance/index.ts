export { describeResourceConformance } from "./suite.ts";
export type { ConformanceApp } from "./suite.ts";
export { startApp } from "./app.ts";
export type { AppFactory, CapturedMail, CapturingMailer, FactoryApp } from "./app.ts";
