/*
 * A short, human description of a User-Agent header ("Firefox on Linux"),
 * shown in a person's session list so they can tell their devices apart.
 * Only this description is stored, never the raw header: it is all the
 * list needs, and less of it is less to leak. The rules are deliberately
 * coarse (first match wins, most specific tokens first, since Chromium
 * browsers also say "Safari" and Edge also says "Chrome").
 */

const BROWSERS: readonly [RegExp, string][] = [
  [/\bEdg(e|A|iOS)?\//, "Edge"],
  [/\bOPR\//, "Opera"],
  [/\bFirefox\/|\bFxiOS\//, "Firefox"],
  [/\bChrome\/|\bCriOS\/|\bChromium\//, "Chrome"],
  [/\bVersion\/[\d.]+.*\bSafari\//, "Safari"],
  [/^curl\//, "curl"],
  [/^node\b|undici|node-fetch/i, "Node.js"],
];

const SYSTEMS: readonly [RegExp, string][] = [
  [/\bAndroid\b/, "Android"],
  [/\biPhone\b|\biPad\b|\biOS\b/, "iOS"],
  [/\bWindows\b/, "Windows"],
  [/\bMac OS X\b|\bMacintosh\b/, "macOS"],
  [/\bCrOS\b/, "ChromeOS"],
  [/\bLinux\b|\bX11\b/, "Linux"],
];

/** Longest description kept, in characters. */
export const MAX_DEVICE_LENGTH: number = 64;

/** Returns a short description of `ua` ("Chrome on Android"), or "" when it says nothing recognizable. */
export function describeUserAgent(ua: string | undefined): string {
  if (ua === undefined || ua === "") return "";
  const browser = BROWSERS.find(([re]) => re.test(ua))?.[1];
  const system = SYSTEMS.find(([re]) => re.test(ua))?.[1];
  const text = browser !== undefined && system !== undefined ? `${browser} on ${system}` : (browser ?? system ?? "");
  return text.slice(0, MAX_DEVICE_LENGTH);
}
