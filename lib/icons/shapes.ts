/*
 * The drawings behind `Icon`, geometry only (the style is set on the outer
 * <svg>): a 2-3px margin keeps round caps unclipped, and dots are
 * zero-length segments that round caps turn into 2px discs.
 */
/** Inner SVG elements per icon slug, in the order `IconSlugs` reports them. */
export const SHAPES: ReadonlyMap<string, string> = new Map([
  // An envelope: the body and the flap's V meeting at the centre.
  ["mail", '<rect x="3" y="5.5" width="18" height="13" rx="2"/><path d="M3.5 7l8.5 6.2 8.5-6.2"/>'],
  // A key (passkey): a round bow at lower left, a shaft to the upper right with two bits.
  ["key", '<circle cx="7.5" cy="16.5" r="4"/><path d="M10.3 13.7 20 4M16.5 7.5l2.5 2.5M14 10l2 2"/>'],
  // A padlock: rounded body, arched shackle, keyhole.
  ["lock", '<rect x="4.5" y="10.5" width="15" height="10.5" rx="2"/><path d="M8 10.5V7.5a4 4 0 0 1 8 0v3M12 14.5v2.5"/>'],
  // A check mark.
  ["check", '<path d="M4.5 12.5l5 5L19.5 6.5"/>'],
  // A cross (close).
  ["x", '<path d="M6 6l12 12M18 6 6 18"/>'],
  // A warning triangle with an exclamation mark.
  ["alert", '<path d="M12 3.5 21.5 20h-19z"/><path d="M12 9.5v5M12 17.5h.01"/>'],
  // A circled "i".
  ["info", '<circle cx="12" cy="12" r="9"/><path d="M12 11v5.5M12 7.5h.01"/>'],
  // A three-quarter ring (progress); spin it with CSS.
  ["spinner", '<path d="M21 12a9 9 0 1 1-9-9"/>'],
  // A person: head and shoulders.
  ["user", '<circle cx="12" cy="8" r="4"/><path d="M4.5 20.5c0-3.9 3.4-6.5 7.5-6.5s7.5 2.6 7.5 6.5"/>'],
  // Sign out: an open door frame on the left, an arrow leaving to the right.
  ["sign-out", '<path d="M10 4H6a2 2 0 0 0-2 2v12a2 2 0 0 0 2 2h4M15 8l4 4-4 4M19 12H9"/>'],
  // A globe (language): outline, equator and one meridian lens.
  [
    "globe",
    '<circle cx="12" cy="12" r="9"/><path d="M3 12h18M12 3c2.4 2.5 3.6 5.5 3.6 9s-1.2 6.5-3.6 9c-2.4-2.5-3.6-5.5-3.6-9S9.6 5.5 12 3z"/>',
  ],
]);
