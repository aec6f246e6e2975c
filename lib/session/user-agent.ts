/*
 * A short description of a User-Agent header ("Firefox on Linux") for a person's session list; only it
 * is stored, never the raw header. First match wins, most specific first: Chromium also says "Safari",
 * Edge also says "Chrome".
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
