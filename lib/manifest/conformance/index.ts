export { describeResourceConformance } from "./suite.ts";
export { startApp } from "./app.ts";
export type { AppFactory, CapturedMail, CapturingMailer, ConformanceApp, FactoryApp } from "./app.ts";
